// What a model file holds, for tools (`tessera inspect`, `tessera import`):
// its tensors, ops, bytecode modules and metadata, without running it.
#ifndef TESSERA_APP_MODEL_SUMMARY_HPP_
#define TESSERA_APP_MODEL_SUMMARY_HPP_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tessera/app/tessera_app.hpp"

namespace tessera::app {

struct ModelSummary {
  std::string name;
  size_t tensor_count = 0, constant_count = 0;
  uint64_t constant_bytes = 0;
  std::vector<TensorInfo> inputs, outputs;
  struct Op {
    uint32_t id = 0;
    std::string type;                 // docs/ops.md name, e.g. "CONV_2D", "DISPATCH"
    std::string vendor, entry_point;  // DISPATCH ops only
  };
  std::vector<Op> ops;
  struct Bytecode {  // one vendor's module (tessera/bytecode.h envelope)
    std::string vendor, soc_model, abi;
    uint64_t bytes = 0;
    uint32_t entry_count = 0, checksum = 0;
  };
  std::vector<Bytecode> bytecodes;
  std::vector<std::pair<std::string, std::string>> metadata;
  // How the bytecodes were built (docs/model_format.md, BuildStamp);
  // `present` is false for a source model or one compiled before stamps.
  struct BuildStamp {
    bool present = false;
    std::string sdk_version, soc, soc_description_sha256, mode, partition_policy;
    std::vector<std::string> accelerators;
    std::vector<std::pair<std::string, std::string>> options;
    int64_t min_ops = 0, max_partitions = 0;
    struct Vendor {
      std::string vendor, plugin_version, build_id, abi_version, compatibility;
    };
    std::vector<Vendor> vendors;
    // Partitions of JIT-only accelerators left in the model as plain ops
    // (a load JIT-compiles them): vendor and op ids.
    struct LeftForJit {
      std::string vendor;
      std::vector<uint32_t> op_ids;
    };
    std::vector<LeftForJit> left_for_jit;
  };
  BuildStamp build_stamp;
  // What loading checked (docs/model_format.md section 4): "full" when a
  // CRC covered every byte, weights included; "structure" when the tables,
  // ranges and bytecode envelopes were (the weights unread, or a file
  // without a checksum footer); "" for an imported ONNX model.
  std::string verified;
  // A .tsr that ends with a checksum footer (without one, neither its
  // tables nor its weights have a CRC).
  bool checksum_footer = false;
};

// Every bytecode module's envelope is verified (its CRC too when loading
// did not check it: then the module is read whole): one that fails is
// TSR_DATA_LOSS naming its vendor.
Result<ModelSummary> Summarize(const Model& model);

}  // namespace tessera::app

#endif  // TESSERA_APP_MODEL_SUMMARY_HPP_
