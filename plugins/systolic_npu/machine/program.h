// The bytecode body of the reference systolic NPU: a constant pool shared by
// all entry points, and per entry point a DRAM region table and one
// instruction stream. Serialized little-endian (layout in
// docs/systolic_npu_isa.md, "Bytecode body"); the standard Tessera envelope
// (tessera/bytecode.h) wraps it.
#ifndef TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_PROGRAM_H_
#define TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_PROGRAM_H_

#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "plugins/systolic_npu/machine/isa.h"
#include "plugins/systolic_npu/machine/soc_config.h"

namespace tessera::systolic {

inline constexpr char kBodyMagic[4] = {'S', 'N', 'P', 'U'};
inline constexpr uint32_t kBodyVersion = 1;
inline constexpr size_t kMaxRank = 8;
inline constexpr size_t kEntryNameBytes = 64;

struct Constant {
  ConstantKind kind = ConstantKind::kData;
  int32_t dtype = TSR_DTYPE_UNKNOWN;  // kData: element type; else I32
  uint64_t offset = 0;                // into Program::constant_data
  uint64_t size = 0;
};

// kOnChip: the entry's activation arena, intermediates kept on chip
// (docs/systolic_npu_isa.md §5 "Memory planning"). It is addressed like a
// DRAM region, but its bytes live in the SRAM the entry's tile buffers
// leave free (the verifier checks they fit): its DMA moves no DRAM bytes
// and costs on-chip cycles (cycle_model.h, SramDmaCycles).
enum class RegionKind : uint32_t { kInput = 1, kOutput = 2, kScratch = 3, kOnChip = 4 };

// One DRAM tensor an entry point addresses as region (index + 1).
struct Region {
  RegionKind kind = RegionKind::kInput;
  uint32_t io_index = 0;  // position among the inputs / outputs
  int32_t dtype = TSR_DTYPE_UNKNOWN;
  std::vector<int64_t> dims;  // rank <= kMaxRank
  uint64_t size_bytes = 0;
};

struct EntryPoint {
  std::string name;
  std::vector<Region> regions;
  std::vector<Instruction> code;
  size_t CountRegions(RegionKind kind) const;
  // Region `region` (1-based, 0 = the constant pool) is the on-chip arena.
  bool OnChip(uint8_t region) const {
    return region >= 1 && region <= regions.size() && regions[region - 1].kind == RegionKind::kOnChip;
  }
};

// What the program was compiled for; must equal the SoC it runs on.
struct TargetInfo {
  uint32_t array_rows = 0, array_cols = 0;
  uint32_t input_bank_bytes = 0, weight_bank_bytes = 0, accum_bank_bytes = 0;
  static TargetInfo FromSoc(const SystolicNpuConfig& npu);
};

struct Program {
  TargetInfo target;
  std::vector<Constant> constants;
  std::vector<uint8_t> constant_data;  // region 0 of every entry point
  std::vector<EntryPoint> entries;

  // Appends raw bytes (16-byte aligned); returns the constant index.
  uint32_t AddData(const void* data, size_t size, int32_t dtype);
  // Appends a descriptor record.
  template <typename T>
  uint32_t AddDescriptor(ConstantKind kind, const T& desc) {
    static_assert(sizeof(T) % 4 == 0);
    const uint32_t idx = AddData(&desc, sizeof(T), TSR_DTYPE_I32);
    constants[idx].kind = kind;
    return idx;
  }
  // Reads a descriptor (caller has verified kind and size).
  template <typename T>
  T Descriptor(uint32_t index) const {
    T out;
    std::memcpy(&out, constant_data.data() + constants[index].offset, sizeof(T));
    return out;
  }
};
// The DRAM bytes one run of `e` cannot avoid: every DATA constant of the
// pool (weights, parameters, tables) read once, every input region read
// once, every output region written once.
uint64_t CompulsoryDramBytes(const Program& p, const EntryPoint& e);

// Byte ranges of each entry section inside the serialized body (for the
// envelope's entry table).
struct EntryRange {
  uint64_t offset = 0, size = 0;
};

std::vector<uint8_t> SerializeProgram(const Program& program, std::vector<EntryRange>* ranges = nullptr);

// Parses a body. Never reads out of bounds; malformed input returns
// InvalidArgument naming what is wrong. Does not run the semantic
// verifier: call VerifyProgram before executing.
absl::StatusOr<Program> ParseProgram(std::span<const uint8_t> body);

// Semantic verifier: opcodes, fields, tile shapes vs the array, SRAM
// ranges vs the bank sizes, constant and DRAM region references,
// descriptor contents. OK means every instruction is safe to execute.
absl::Status VerifyProgram(const Program& program, const SystolicNpuConfig& npu);

// Verifies one instruction of `entry` (index `pc` used in messages).
// `sram_high_water` (optional, 3 banks): raised to the end of every SRAM
// range the instruction touches.
absl::Status VerifyInstruction(const Program& program, const EntryPoint& entry, const SystolicNpuConfig& npu,
                               const Instruction& in, size_t pc, uint64_t* sram_high_water = nullptr);

}  // namespace tessera::systolic

#endif  // TESSERA_PLUGINS_SYSTOLIC_NPU_MACHINE_PROGRAM_H_
