#include "tessera/app/model_summary.hpp"

#include "framework/app/app_internal.h"
#include "framework/core/base/dtype.h"
#include "tessera/bytecode.h"
#include "tessera/ops.h"

namespace tessera::app {

Result<ModelSummary> Summarize(const Model& model) {
  const tessera::Graph& g = model.impl()->graph;
  ModelSummary s;
  s.name = g.name;
  s.tensor_count = g.tensors.size();
  for (const tessera::Tensor& t : g.tensors)
    if (t.is_constant) {
      ++s.constant_count;
      s.constant_bytes += t.data.size();
    }
  s.inputs = TensorInfos(g, g.inputs);
  s.outputs = TensorInfos(g, g.outputs);
  for (const Op& op : g.ops) {
    ModelSummary::Op o{op.id, OpTypeName(op.type), "", ""};
    if (op.dispatch) {
      o.vendor = op.dispatch->vendor;
      o.entry_point = op.dispatch->entry_point;
    }
    s.ops.push_back(std::move(o));
  }
  for (const BytecodeBlob& b : g.bytecodes) {
    tsr_bytecode_header h{};
    char err[160] = "";
    // A .tsr's loader checked each envelope already (its CRC too at full):
    // the header is read again here, not the body.
    const uint32_t flags = b.crc == BlobCrc::kUnchecked ? 0 : TSR_BYTECODE_VERIFY_SKIP_CHECKSUM;
    if (tsr_bytecode_verify_ex(b.bytes.data(), b.bytes.size(), nullptr, flags, &h, err, sizeof(err)) != TSR_OK)
      return Status(TSR_DATA_LOSS, "bytecode for vendor '" + b.vendor + "' fails verification: " + err);
    s.bytecodes.push_back({b.vendor, h.soc_model, std::to_string(h.abi_major) + "." + std::to_string(h.abi_minor),
                           b.bytes.size(), h.entry_count, h.checksum});
  }
  for (const auto& [k, v] : g.metadata) s.metadata.emplace_back(k, v);
  if (g.verified) s.verified = *g.verified == tessera::VerifyLevel::kFull ? "full" : "structure";
  s.checksum_footer = g.checksum_footer;
  if (const std::optional<tessera::BuildStamp>& b = g.build_stamp) {
    ModelSummary::BuildStamp& o = s.build_stamp;
    o = {true,
         b->sdk_version,
         b->soc,
         b->soc_description_sha256,
         b->mode,
         b->partition_policy,
         b->accelerators,
         b->options,
         b->min_ops,
         b->max_partitions,
         {},
         {}};
    for (const VendorBuildStamp& v : b->vendors)
      o.vendors.push_back({v.vendor, v.plugin_version, v.build_id, v.abi_version, v.compatibility});
    for (const tessera::BuildStamp::LeftForJit& l : b->left_for_jit) o.left_for_jit.push_back({l.vendor, l.op_ids});
  }
  return s;
}

}  // namespace tessera::app
