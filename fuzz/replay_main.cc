// Replays fuzz inputs without libFuzzer: the normal (gcc) build links each
// fuzz target with this main so ctest feeds it the checked-in seed corpus
// and every past crash (fuzz/regressions/<target>/) on every build. A
// crash, sanitizer report or abort fails the test; the target itself only
// returns 0, so a replay can fail only the way the fuzzer would.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  size_t replayed = 0;
  for (int i = 1; i < argc; ++i) {
    std::error_code ec;
    if (!std::filesystem::is_directory(argv[i], ec)) continue;  // a target may have no regressions yet
    for (const auto& entry : std::filesystem::directory_iterator(argv[i])) {
      if (!entry.is_regular_file()) continue;
      std::ifstream in(entry.path(), std::ios::binary);
      std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      std::fprintf(stderr, "replay %s (%zu bytes)\n", entry.path().c_str(), bytes.size());
      LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
      ++replayed;
    }
  }
  std::printf("replayed %zu inputs\n", replayed);
  // No input at all means the corpus path is wrong: fail rather than pass vacuously.
  return replayed > 0 ? 0 : 1;
}
