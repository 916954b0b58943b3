#include "framework/core/model/build_stamp_io.h"

#include "framework/core/model/flatbuffer_string.h"

namespace tessera {
namespace fb = ::tessera::schema;

flatbuffers::Offset<fb::BuildStamp> WriteBuildStamp(flatbuffers::FlatBufferBuilder& b, const BuildStamp& stamp) {
  std::vector<flatbuffers::Offset<flatbuffers::String>> accelerators;
  for (const std::string& a : stamp.accelerators) accelerators.push_back(b.CreateString(a));
  std::vector<flatbuffers::Offset<fb::Metadata>> options;
  for (const auto& [k, v] : stamp.options)
    options.push_back(fb::CreateMetadata(b, b.CreateString(k), b.CreateString(v)));
  std::vector<flatbuffers::Offset<fb::VendorBuildStamp>> vendors;
  for (const VendorBuildStamp& v : stamp.vendors)
    vendors.push_back(fb::CreateVendorBuildStamp(b, b.CreateString(v.vendor), b.CreateString(v.plugin_version),
                                                 b.CreateString(v.build_id), b.CreateString(v.abi_version),
                                                 b.CreateString(v.compatibility)));
  std::vector<flatbuffers::Offset<fb::LeftForJit>> left;
  for (const BuildStamp::LeftForJit& l : stamp.left_for_jit)
    left.push_back(fb::CreateLeftForJit(b, b.CreateString(l.vendor), b.CreateVector(l.op_ids)));
  return fb::CreateBuildStamp(b, b.CreateString(stamp.sdk_version), b.CreateString(stamp.soc),
                              b.CreateString(stamp.soc_description_sha256), b.CreateString(stamp.mode),
                              b.CreateVector(accelerators), b.CreateVector(options),
                              b.CreateString(stamp.partition_policy), stamp.min_ops, stamp.max_partitions,
                              b.CreateVector(vendors), left.empty() ? 0 : b.CreateVector(left));
}

BuildStamp ReadBuildStamp(const fb::BuildStamp& t) {
  BuildStamp s;
  s.sdk_version = FlatString(t.sdk_version());
  s.soc = FlatString(t.soc());
  s.soc_description_sha256 = FlatString(t.soc_description_sha256());
  s.mode = FlatString(t.mode());
  if (t.accelerators())
    for (const flatbuffers::String* a : *t.accelerators()) s.accelerators.push_back(FlatString(a));
  if (t.options())
    for (const fb::Metadata* m : *t.options()) s.options.emplace_back(FlatString(m->key()), FlatString(m->value()));
  s.partition_policy = FlatString(t.partition_policy());
  s.min_ops = t.min_ops();
  s.max_partitions = t.max_partitions();
  if (t.vendors())
    for (const fb::VendorBuildStamp* v : *t.vendors())
      s.vendors.push_back({FlatString(v->vendor()), FlatString(v->plugin_version()), FlatString(v->build_id()),
                           FlatString(v->abi_version()), FlatString(v->compatibility())});
  if (t.left_for_jit())
    for (const fb::LeftForJit* l : *t.left_for_jit()) {
      BuildStamp::LeftForJit left{FlatString(l->vendor()), {}};
      if (l->op_ids()) left.op_ids.assign(l->op_ids()->begin(), l->op_ids()->end());
      s.left_for_jit.push_back(std::move(left));
    }
  return s;
}

}  // namespace tessera
