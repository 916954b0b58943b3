#include "framework/cli/concurrent_runs.h"

#include <barrier>
#include <chrono>
#include <cstring>
#include <thread>

#include "framework/cli/app_flags.h"

namespace tessera::cli {
namespace {

bool SameOutputs(const std::vector<app::Tensor>& a, const std::vector<app::Tensor>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const app::TensorInfo &x = a[i].info(), &y = b[i].info();
    if (x.dtype != y.dtype || x.shape != y.shape || std::memcmp(a[i].data(), b[i].data(), x.byte_size()) != 0)
      return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<ConcurrentRuns> RunConcurrently(const app::CompiledModel& model, const std::vector<app::Tensor>& inputs,
                                               const std::vector<app::Tensor>& want, int concurrency, int warmup,
                                               int reps) {
  using Clock = std::chrono::steady_clock;
  // Contexts are made first (allocation is not what is measured).
  std::vector<app::RunContext> contexts;
  for (int t = 0; t < concurrency; ++t) {
    app::Result<app::RunContext> c = app::RunContext::Create(model);
    if (!c.ok()) return ToAbsl(c.status());
    contexts.push_back(*std::move(c));
  }
  ConcurrentRuns result;
  result.concurrency = concurrency;
  std::vector<std::vector<double>> latency(concurrency);
  std::vector<int> mismatches(concurrency, 0);
  std::vector<app::Status> failure(concurrency);
  std::vector<Clock::time_point> started(concurrency), finished(concurrency);
  // Every thread starts timing together, after its own warm-up.
  std::barrier start_line(concurrency);
  std::vector<std::thread> threads;
  for (int t = 0; t < concurrency; ++t) {
    threads.emplace_back([&, t] {
      app::RunContext& context = contexts[t];
      latency[t].reserve(reps);
      for (int i = 0; i < warmup && failure[t].ok(); ++i) failure[t] = context.Run(inputs).status();
      start_line.arrive_and_wait();
      started[t] = Clock::now();
      for (int i = 0; i < reps && failure[t].ok(); ++i) {
        const Clock::time_point start = Clock::now();
        app::Result<std::vector<app::Tensor>> out = context.Run(inputs);
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
    if (!failure[t].ok()) return ToAbsl(failure[t]);
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
