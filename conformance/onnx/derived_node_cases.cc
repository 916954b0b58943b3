#include "conformance/onnx/derived_node_cases.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tessera::conformance {
namespace fs = std::filesystem;
namespace {

absl::StatusOr<std::string> ReadBytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open '", path.string(), "'"));
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Written beside and renamed into place: a kept output directory may be
// rewritten by one test while another's `tessera` reads it.
absl::Status WriteBytes(const fs::path& path, const std::string& bytes) {
  const fs::path tmp = path.string() + "." + std::to_string(::getpid()) + ".tmp";
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  std::error_code ec;
  if (out) fs::rename(tmp, path, ec);
  if (!out || ec) {
    fs::remove(tmp, ec);
    return absl::InternalError(absl::StrCat("cannot write '", path.string(), "'"));
  }
  return absl::OkStatus();
}

template <typename Proto>
absl::StatusOr<Proto> ReadProto(const fs::path& path) {
  absl::StatusOr<std::string> bytes = ReadBytes(path);
  if (!bytes.ok()) return bytes.status();
  Proto proto;
  if (!proto.ParseFromString(*bytes)) return absl::InvalidArgumentError(absl::StrCat("'", path.string(), "' does not parse"));
  return proto;
}

bool SameDims(const onnx::TypeProto& type, const onnx::TensorProto& t) {
  if (!type.has_tensor_type() || type.tensor_type().elem_type() != t.data_type()) return false;
  const onnx::TensorShapeProto& shape = type.tensor_type().shape();
  if (shape.dim_size() != t.dims_size()) return false;
  for (int i = 0; i < shape.dim_size(); ++i)
    if (!shape.dim(i).has_dim_value() || shape.dim(i).dim_value() != t.dims(i)) return false;
  return true;
}

absl::StatusOr<onnx::ModelProto> Derive(const DerivedNodeCase& c, const fs::path& source) {
  absl::StatusOr<onnx::ModelProto> model = ReadProto<onnx::ModelProto>(source / "model.onnx");
  if (!model.ok()) return model.status();
  if (c.op_type == "Div") {
    absl::StatusOr<onnx::TensorProto> divisor = ReadProto<onnx::TensorProto>(source / "test_data_set_0" / "input_1.pb");
    if (!divisor.ok()) return divisor.status();
    return DivideByConstant(*model, *divisor);
  }
  return RaiseGlobalAveragePoolOpset(*model, kDerivedGapOpset);
}

}  // namespace

const std::vector<DerivedNodeCase>& DerivedNodeCases() {
  static const std::vector<DerivedNodeCase> kCases = {
      {"test_div_by_constant", "test_div", "Div"},
      {"test_div_bcast_by_constant", "test_div_bcast", "Div"},
      {"test_div_example_by_constant", "test_div_example", "Div"},
      {"test_globalaveragepool_opset11", "test_globalaveragepool", "GlobalAveragePool"},
      {"test_globalaveragepool_precomputed_opset11", "test_globalaveragepool_precomputed", "GlobalAveragePool"},
  };
  return kCases;
}

absl::StatusOr<onnx::ModelProto> DivideByConstant(const onnx::ModelProto& model, const onnx::TensorProto& divisor) {
  const onnx::GraphProto& g = model.graph();
  if (g.node_size() != 1 || g.node(0).op_type() != "Div" || g.node(0).input_size() != 2)
    return absl::InvalidArgumentError("expected a graph of one two-input Div node");
  const std::string& b = g.node(0).input(1);
  const auto is_b = [&](const onnx::ValueInfoProto& v) { return v.name() == b; };
  const auto input = std::find_if(g.input().begin(), g.input().end(), is_b);
  if (input == g.input().end()) return absl::InvalidArgumentError(absl::StrCat("Div's B '", b, "' is not a graph input"));
  if (!SameDims(input->type(), divisor))
    return absl::InvalidArgumentError(absl::StrCat("input_1.pb's dtype or dims differ from graph input '", b, "'"));
  onnx::ModelProto out = model;
  onnx::GraphProto* graph = out.mutable_graph();
  graph->mutable_input()->DeleteSubrange(static_cast<int>(input - g.input().begin()), 1);
  // The values exactly as ONNX's test data holds them (raw_data or typed
  // fields alike); only the name is set, so the initializer binds to B.
  onnx::TensorProto* constant = graph->add_initializer();
  *constant = divisor;
  constant->set_name(b);
  return out;
}

absl::StatusOr<onnx::ModelProto> RaiseGlobalAveragePoolOpset(const onnx::ModelProto& model, int64_t opset) {
  // Raising the opset re-reads every node at the new version, so only a
  // graph whose every op kept its meaning may be raised. ONNX's operator
  // changelog (docs/Changelog.md) has GlobalAveragePool-1 and no later
  // version up to opset 17, ONNX 1.12's newest (its defs/operator_sets.h,
  // /usr/include/onnx with libonnx-dev, registers version 1 alone), so at
  // opset 11 it is the same operator with the same outputs.
  for (const onnx::NodeProto& n : model.graph().node())
    if (n.op_type() != "GlobalAveragePool" || !(n.domain().empty() || n.domain() == "ai.onnx"))
      return absl::InvalidArgumentError(absl::StrCat("only GlobalAveragePool keeps its meaning when raised; found ",
                                                     n.op_type()));
  onnx::ModelProto out = model;
  out.clear_opset_import();
  onnx::OperatorSetIdProto* id = out.add_opset_import();
  id->set_domain("");
  id->set_version(opset);
  // ONNX's versioning table pairs opset 11 with IR version 6 (ONNX 1.6);
  // IR 3..6 changed nothing a one-node graph without initializers uses.
  if (opset >= 11 && out.ir_version() < 6) out.set_ir_version(6);
  return out;
}

absl::StatusOr<std::vector<DerivedNodeCase>> WriteDerivedNodeCases(const fs::path& node_dir, const fs::path& out_dir) {
  std::vector<DerivedNodeCase> written;
  for (const DerivedNodeCase& c : DerivedNodeCases()) {
    const fs::path source = node_dir / c.source;
    std::error_code ec;
    if (!fs::is_regular_file(source / "model.onnx", ec)) continue;
    absl::StatusOr<onnx::ModelProto> model = Derive(c, source);
    if (!model.ok()) return absl::Status(model.status().code(), absl::StrCat(c.source, ": ", model.status().message()));
    const fs::path dir = out_dir / c.name;
    fs::create_directories(dir / "test_data_set_0", ec);
    if (ec) return absl::InternalError(absl::StrCat("cannot create '", dir.string(), "': ", ec.message()));
    absl::Status s = WriteBytes(dir / "model.onnx", model->SerializeAsString());
    // A (input_0) and ONNX's expected output, copied unchanged; a derived
    // Div case has no input_1: B is now the initializer.
    for (const char* file : {"input_0.pb", "output_0.pb"}) {
      if (!s.ok()) break;
      absl::StatusOr<std::string> bytes = ReadBytes(source / "test_data_set_0" / file);
      s = bytes.ok() ? WriteBytes(dir / "test_data_set_0" / file, *bytes) : bytes.status();
    }
    if (!s.ok()) return s;
    written.push_back(c);
  }
  return written;
}

}  // namespace tessera::conformance
