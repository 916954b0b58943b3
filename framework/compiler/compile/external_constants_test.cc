// The host's check of a plugin's constant references, on a hand-built graph:
// x -> ADD(x, c1) -> MUL(., c2) -> y, with c0 a constant nobody in the
// partition reads. The partition is the MUL alone, so its local tensors are
// a subset and the mapping back to global indices is not the identity.
#include "framework/compiler/compile/external_constants.h"

#include <array>

#include "absl/strings/str_cat.h"
#include "framework/core/model/model_builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/ops.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

struct Fixture {
  Graph graph;
  int32_t c2 = -1, t = -1;  // global indices
};

Fixture Make() {
  ModelBuilder b("refs");
  const int32_t x = b.Input("x", TSR_DTYPE_F32, {4});
  b.Constant<float>("c0", {2}, {1, 2});
  const int32_t t = b.Op(TSR_OP_ADD, {x, b.Constant<float>("c1", {4}, {1, 1, 1, 1})}, {}, {.name = "t"});
  const int32_t c2 = b.Constant<float>("c2", {4}, {2, 2, 2, 2});
  b.Output(b.Op(TSR_OP_MUL, {t, c2}, {}, {.name = "y"}));
  return {*std::move(b).Build(), c2, t};
}

int32_t LocalOf(const GraphView& view, int32_t global) {
  for (size_t i = 0; i < view.tensors().size(); ++i)
    if (view.tensors()[i] == global) return static_cast<int32_t>(i);
  return -1;
}

tsr_constant_reference Ref(int32_t tensor, uint32_t key, uint64_t size) {
  return {.header = {sizeof(tsr_constant_reference), 1, 4}, .tensor = tensor, .key = key, .size_bytes = size};
}

TEST(MapConstantReferences, AConstantOfItsSizeMapsToItsGlobalIndex) {
  Fixture f = Make();
  const GraphView view = GraphView::Partition(f.graph, {1});
  const int32_t local = LocalOf(view, f.c2);
  ASSERT_GE(local, 0);
  const tsr_constant_reference ref = Ref(local, 9, 16);
  absl::StatusOr<std::vector<DispatchConstant>> m = MapConstantReferences(f.graph, view, {&ref, 1}, "v", 0);
  ASSERT_TRUE(m.ok()) << m.status();
  ASSERT_EQ(m->size(), 1u);
  EXPECT_EQ((*m)[0].key, 9u);
  EXPECT_EQ((*m)[0].tensor, f.c2);
}

TEST(MapConstantReferences, EveryWrongReferenceIsTheVendorsCompileFailure) {
  Fixture f = Make();
  const GraphView view = GraphView::Partition(f.graph, {1});
  const int32_t c2 = LocalOf(view, f.c2), t = LocalOf(view, f.t);
  const int32_t count = static_cast<int32_t>(view.tensors().size());
  auto error = [&](std::vector<std::array<int64_t, 3>> rows) {
    std::vector<tsr_constant_reference> refs;
    for (const auto& r : rows)
      refs.push_back(Ref(static_cast<int32_t>(r[0]), static_cast<uint32_t>(r[1]), static_cast<uint64_t>(r[2])));
    absl::StatusOr<std::vector<DispatchConstant>> m = MapConstantReferences(f.graph, view, refs, "npu", 3);
    EXPECT_FALSE(m.ok());
    EXPECT_EQ(m.status().code(), absl::StatusCode::kFailedPrecondition);
    return std::string(m.status().message());
  };
  EXPECT_THAT(error({{count, 1, 16}}), HasSubstr(absl::StrCat("npu partition 3: external constant key 1 (local tensor ",
                                                              count, ") is out of range")));
  EXPECT_THAT(error({{-1, 1, 16}}), HasSubstr("is out of range"));
  EXPECT_THAT(error({{t, 1, 16}}), HasSubstr("names 't', which is not a constant"));
  EXPECT_THAT(error({{c2, 1, 12}}), HasSubstr("says 12 bytes; 'c2' has 16"));
  EXPECT_THAT(error({{c2, 1, 16}, {c2, 1, 16}}),
              HasSubstr("key 1 (local tensor " + std::to_string(c2) + ") is reported twice"));
}

}  // namespace
}  // namespace tessera
