// docs/app-guide.md shows code that the tests compile: every ```cpp block
// must appear, line for line, in samples/app/matmul.cpp and every ```c
// block in samples/app/matmul.c, which ctest builds and runs.
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace {

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct Block {
  std::string language, code;
  int line = 0;
};

std::vector<Block> CodeBlocks(const std::string& markdown) {
  std::vector<Block> blocks;
  std::istringstream in(markdown);
  std::string line;
  Block* open = nullptr;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("```", 0) == 0) {
      if (open != nullptr) {
        open = nullptr;
      } else {
        blocks.push_back({line.substr(3), "", number});
        open = &blocks.back();
      }
      continue;
    }
    if (open != nullptr) open->code += line + "\n";
  }
  return blocks;
}

TEST(AppGuide, EveryCodeBlockIsInASample) {
  const std::string guide = Read(TSR_SOURCE_DIR "/docs/app-guide.md");
  ASSERT_FALSE(guide.empty()) << "docs/app-guide.md not found";
  const std::string cpp = Read(TSR_SOURCE_DIR "/samples/app/matmul.cpp");
  const std::string c = Read(TSR_SOURCE_DIR "/samples/app/matmul.c");
  int checked = 0;
  for (const Block& b : CodeBlocks(guide)) {
    if (b.language != "cpp" && b.language != "c") continue;
    const std::string& sample = b.language == "cpp" ? cpp : c;
    EXPECT_NE(sample.find(b.code), std::string::npos)
        << "docs/app-guide.md:" << b.line << ": this " << b.language << " block is not in the sample:\n"
        << b.code;
    ++checked;
  }
  EXPECT_GE(checked, 4);  // two C++ blocks and two C blocks at least
}

}  // namespace
