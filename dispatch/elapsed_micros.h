// Elapsed steady-clock time in microseconds, as the run profile reports it.
#pragma once

#include <chrono>

namespace tessera {

inline double MicrosBetween(std::chrono::steady_clock::time_point from, std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double, std::micro>(to - from).count();
}

inline double MicrosSince(std::chrono::steady_clock::time_point start) {
  return MicrosBetween(start, std::chrono::steady_clock::now());
}

}  // namespace tessera
