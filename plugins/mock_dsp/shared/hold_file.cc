#include "plugins/mock_dsp/shared/hold_file.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace tessera::mock_dsp {

bool HoldUntilReleased(const std::string& hold_file, int64_t hang_ms) {
  std::error_code ignored;
  std::ofstream(hold_file + ".held").flush();
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(hang_ms);
  while (!std::filesystem::exists(hold_file, ignored)) {
    if (std::chrono::steady_clock::now() >= until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

}  // namespace tessera::mock_dsp
