#include "cli/concurrent_runs.h"

#include <barrier>
#include <chrono>
#include <mutex>
#include <thread>

#include "run_context.h"

namespace tessera::cli {
namespace {

bool SameOutputs(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].dtype != b[i].dtype || a[i].shape != b[i].shape || a[i].data != b[i].data) return false;
  return true;
}

}  // namespace

absl::StatusOr<ConcurrentRuns> RunConcurrently(const std::shared_ptr<const LoadedModel>& model,
                                               const std::vector<HostTensor>& inputs,
                                               const std::vector<HostTensor>& want, int concurrency, int warmup,
                                               int reps) {
  using Clock = std::chrono::steady_clock;
  // Contexts are made first (allocation is not what is measured).
  std::vector<std::unique_ptr<RunContext>> contexts;
  for (int t = 0; t < concurrency; ++t) {
    absl::StatusOr<std::unique_ptr<RunContext>> c = RunContext::Create(model);
    if (!c.ok()) return c.status();
    contexts.push_back(*std::move(c));
  }
  ConcurrentRuns result;
  result.concurrency = concurrency;
  std::vector<std::vector<double>> latency(concurrency);
  std::vector<int> mismatches(concurrency, 0);
  std::vector<absl::Status> failure(concurrency);
  std::vector<Clock::time_point> started(concurrency), finished(concurrency);
  // Every thread starts timing together, after its own warm-up.
  std::barrier start_line(concurrency);
  std::vector<std::thread> threads;
  for (int t = 0; t < concurrency; ++t) {
    threads.emplace_back([&, t] {
      RunContext& context = *contexts[t];
      for (int i = 0; i < warmup && failure[t].ok(); ++i) failure[t] = context.Run(inputs).status();
      start_line.arrive_and_wait();
      started[t] = Clock::now();
      for (int i = 0; i < reps && failure[t].ok(); ++i) {
        const Clock::time_point start = Clock::now();
        absl::StatusOr<std::vector<HostTensor>> out = context.Run(inputs);
        latency[t].push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
        if (!out.ok()) failure[t] = out.status();
        else if (!SameOutputs(*out, want)) ++mismatches[t];
      }
      finished[t] = Clock::now();
    });
  }
  for (std::thread& t : threads) t.join();
  Clock::time_point first = started[0], last = finished[0];
  for (int t = 0; t < concurrency; ++t) {
    if (!failure[t].ok()) return failure[t];
    first = std::min(first, started[t]);
    last = std::max(last, finished[t]);
    result.latency_us.insert(result.latency_us.end(), latency[t].begin(), latency[t].end());
    result.mismatches += mismatches[t];
  }
  result.runs = static_cast<int>(result.latency_us.size());
  result.wall_us = std::chrono::duration<double, std::micro>(last - first).count();
  return result;
}

}  // namespace tessera::cli
