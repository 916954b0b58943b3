#include "framework/compiler/onnx/onnx_importer.h"

#include <algorithm>
#include <cstdint>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "framework/compiler/onnx/constant_folding.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/compiler/onnx/import_diagnostics.h"
#include "framework/compiler/onnx/initializers.h"
#include "framework/compiler/onnx/model_reader.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/exception_boundary.h"
#include "framework/core/base/status_macros.h"
#include "framework/core/graph/graph_budgets.h"
#include "framework/core/graph/graph_verifier.h"
#include "framework/core/graph/tensor_pruning.h"
#include "framework/core/model/mapped_file.h"
#include "support/math/checked_math.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {

// ---- Node attribute access -------------------------------------------------

const onnx::AttributeProto* Node::Find(const std::string& name) const {
  for (const onnx::AttributeProto& a : proto_.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

void Node::Fail(const std::string& message) const {
  if (error_.ok()) error_ = absl::InvalidArgumentError(message);
}

int64_t Node::Int(const std::string& name, int64_t def) const {
  const onnx::AttributeProto* a = Find(name);
  if (a == nullptr) return def;
  if (a->type() != onnx::AttributeProto::INT && !(a->type() == onnx::AttributeProto::UNDEFINED && a->has_i())) {
    Fail(absl::StrCat("attribute '", name, "' must be an int"));
    return def;
  }
  return a->i();
}

float Node::Float(const std::string& name, float def) const {
  const onnx::AttributeProto* a = Find(name);
  if (a == nullptr) return def;
  if (a->type() == onnx::AttributeProto::INT) return static_cast<float>(a->i());
  if (a->type() != onnx::AttributeProto::FLOAT && !(a->type() == onnx::AttributeProto::UNDEFINED && a->has_f())) {
    Fail(absl::StrCat("attribute '", name, "' must be a float"));
    return def;
  }
  return a->f();
}

std::string Node::String(const std::string& name, const std::string& def) const {
  const onnx::AttributeProto* a = Find(name);
  if (a == nullptr) return def;
  if (a->type() != onnx::AttributeProto::STRING && !(a->type() == onnx::AttributeProto::UNDEFINED && a->has_s())) {
    Fail(absl::StrCat("attribute '", name, "' must be a string"));
    return def;
  }
  return a->s();
}

std::vector<int64_t> Node::Ints(const std::string& name) const {
  const onnx::AttributeProto* a = Find(name);
  if (a == nullptr) return {};
  if (a->type() != onnx::AttributeProto::INTS && a->type() != onnx::AttributeProto::UNDEFINED) {
    Fail(absl::StrCat("attribute '", name, "' must be a list of ints"));
    return {};
  }
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

std::vector<float> Node::Floats(const std::string& name) const {
  const onnx::AttributeProto* a = Find(name);
  if (a == nullptr) return {};
  if (a->type() != onnx::AttributeProto::FLOATS && a->type() != onnx::AttributeProto::UNDEFINED) {
    Fail(absl::StrCat("attribute '", name, "' must be a list of floats"));
    return {};
  }
  return std::vector<float>(a->floats().begin(), a->floats().end());
}

absl::StatusOr<HostTensor> Node::TensorAttr(const std::string& name) const {
  const onnx::AttributeProto* a = Find(name);
  if (a == nullptr || !a->has_t())
    return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' must be a tensor"));
  return ConvertTensorProto(a->t(), payloads_);
}

absl::StatusOr<ConvertedTensor> Node::TensorAttrView(const std::string& name) const {
  const onnx::AttributeProto* a = Find(name);
  if (a == nullptr || !a->has_t())
    return absl::InvalidArgumentError(absl::StrCat("attribute '", name, "' must be a tensor"));
  return ConvertTensorProtoView(a->t(), payloads_);
}

// ---- shared helpers ---------------------------------------------------------

absl::Status Unsupported(const std::string& what) { return absl::UnimplementedError(what); }

absl::StatusOr<int32_t> Required(const Node& node, size_t i) {
  if (!node.has_input(i)) return absl::InvalidArgumentError(absl::StrCat("required input ", i, " is missing"));
  return node.input(i);
}

absl::StatusOr<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return absl::InvalidArgumentError(absl::StrCat("axis ", axis, " out of range for rank ", rank));
  return axis < 0 ? axis + rank : axis;
}

const ConverterTable& Converters() {
  static const ConverterTable* table = [] {
    auto* t = new ConverterTable;
    RegisterElementwiseConverters(*t);
    RegisterNnConverters(*t);
    RegisterLayoutConverters(*t);
    RegisterReduceConverters(*t);
    RegisterConstantConverters(*t);
    RegisterQuantConverters(*t);
    RegisterRnnConverters(*t);
    RegisterControlFlowConverters(*t);
    RegisterResizeConverters(*t);
    RegisterIndexConverters(*t);
    RegisterGroupNormConverters(*t);
    RegisterEinsumConverters(*t);
    return t;
  }();
  return *table;
}

// ---- the import -------------------------------------------------------------

namespace {

std::string NodeName(const onnx::NodeProto& node, int index) {
  return node.name().empty() ? absl::StrCat("#", index) : node.name();
}

std::string NodeLabel(const onnx::NodeProto& node, int index) {
  return absl::StrCat("node '", NodeName(node, index), "' (", node.op_type(), ")");
}

std::string DimsText(const std::vector<int64_t>& dims) { return absl::StrCat("[", absl::StrJoin(dims, ","), "]"); }

bool IsFixed(const onnx::TensorShapeProto::Dimension& d) { return d.has_dim_value() && d.dim_value() >= 0; }

// The declared dims as the model writes them: symbolic ones by name, "?"
// for an unnamed unknown one.
std::string DeclaredText(const onnx::TypeProto::Tensor& tt) {
  if (!tt.has_shape()) return "(no shape)";
  std::vector<std::string> parts;
  for (const onnx::TensorShapeProto::Dimension& d : tt.shape().dim())
    parts.push_back(IsFixed(d)                                    ? absl::StrCat(d.dim_value())
                    : d.has_dim_param() && !d.dim_param().empty() ? d.dim_param()
                                                                  : "?");
  return absl::StrCat("[", absl::StrJoin(parts, ","), "]");
}

// A working example of the flag: the declared dims with every dynamic one
// set to 1 (D0,D1,... when even the rank is unknown).
std::string ExampleFlag(const std::string& name, const onnx::TypeProto::Tensor& tt) {
  std::vector<std::string> dims;
  if (!tt.has_shape()) dims = {"D0", "D1", "..."};
  for (const onnx::TensorShapeProto::Dimension& d : tt.shape().dim())
    dims.push_back(IsFixed(d) ? absl::StrCat(d.dim_value()) : "1");
  return absl::StrCat("--input-shape ", ShellWord(absl::StrCat(name, "=", absl::StrJoin(dims, ","))));
}

// A given shape must keep the declared rank and every fixed dimension:
// only the dynamic ones are the caller's to choose.
absl::Status CheckGivenShape(const std::string& label, const onnx::TypeProto::Tensor& tt,
                             const std::vector<int64_t>& given, const std::string& given_text) {
  if (!tt.has_shape()) return absl::OkStatus();
  const int rank = tt.shape().dim_size();
  if (static_cast<int>(given.size()) != rank)
    return absl::InvalidArgumentError(
        absl::StrCat(given_text, " has rank ", given.size(), "; ", label, " is ", DeclaredText(tt), ", rank ", rank));
  for (int i = 0; i < rank; ++i) {
    const onnx::TensorShapeProto::Dimension& d = tt.shape().dim(i);
    if (IsFixed(d) && d.dim_value() != given[i])
      return absl::InvalidArgumentError(absl::StrCat(given_text, " conflicts with ", label, " ", DeclaredText(tt),
                                                     ": dimension ", i, " is fixed at ", d.dim_value(), ", not ",
                                                     given[i]));
  }
  return absl::OkStatus();
}

// The shape of a frozen input whose declared shape is dynamic: no shape
// declared takes [] for one value and [n] for n; a single dynamic dim is
// whatever makes the element count match.
absl::StatusOr<std::vector<int64_t>> FrozenShape(const std::string& label, const onnx::TypeProto::Tensor& tt,
                                                 size_t count) {
  if (!tt.has_shape()) return count == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{static_cast<int64_t>(count)};
  std::vector<int64_t> shape;
  int dynamic = -1;
  int64_t known = 1;
  for (int i = 0; i < tt.shape().dim_size(); ++i) {
    const onnx::TensorShapeProto::Dimension& d = tt.shape().dim(i);
    if (!IsFixed(d)) {
      if (dynamic >= 0)
        return absl::InvalidArgumentError(absl::StrCat("--freeze-input: ", label, " ", DeclaredText(tt),
                                                       " has several dynamic dimensions; give --input-shape too"));
      dynamic = i;
      shape.push_back(0);
      continue;
    }
    // Past the value count the product can only fail (and must not overflow).
    const std::optional<int64_t> next = checked::Mul(known, d.dim_value());
    known = next && *next <= static_cast<int64_t>(count) ? *next : 0;
    shape.push_back(d.dim_value());
  }
  if (known <= 0 || count % known != 0)
    return absl::InvalidArgumentError(
        absl::StrCat("--freeze-input: ", count, " values do not fill ", label, " ", DeclaredText(tt)));
  shape[dynamic] = static_cast<int64_t>(count) / known;
  return shape;
}

// Makes input `t` the constant `values` (converted to its dtype).
absl::Status Freeze(const std::string& label, int32_t t, const std::vector<double>& values, ImportContext& ctx) {
  const Tensor& x = ctx.tensor(t);
  if (x.element_count() != static_cast<int64_t>(values.size()))
    return absl::InvalidArgumentError(absl::StrCat("--freeze-input gives ", values.size(), " values; ", label, " ",
                                                   DimsText(x.shape), " holds ", x.element_count()));
  HostTensor h;
  h.dtype = x.dtype;
  h.shape = x.shape;
  ASSIGN_OR_RETURN(const size_t bytes, ctx.FoldedBytes(x.dtype, x.shape, label));
  h.data.resize(bytes);
  for (size_t i = 0; i < values.size(); ++i) StoreElement(x.dtype, values[i], h.data.data(), static_cast<int64_t>(i));
  ctx.SetFreezableValue(t, std::move(h));
  if (!ctx.RequireConstant(t)) return absl::InternalError(absl::StrCat(label, ": could not be frozen"));
  return absl::OkStatus();
}

// A dynamic input is a problem to report; it gets its dynamic dims as 1
// (the advice) so the nodes after it are still checked, or, of unknown
// rank, is missing.
absl::Status ImportInputs(const onnx::GraphProto& g, const ImportOptions& options, ImportContext& ctx,
                          DiagnosticsCollector& diag) {
  std::set<std::string> initializer_names;
  for (const onnx::TensorProto& init : g.initializer()) initializer_names.insert(init.name());
  size_t position = 0;
  std::set<std::string> used_overrides, used_frozen;
  // Every input still dynamic, so one message names them all.
  std::vector<std::string> dynamic, advice, dynamic_names;
  for (const onnx::ValueInfoProto& in : g.input()) {
    if (initializer_names.count(in.name())) continue;  // an initializer's default wins: static weights
    const auto frozen = options.frozen_inputs.find(in.name());
    // An input frozen by name is no input of the imported model: it takes
    // no position (ImportOptions::positional_input_shapes).
    const size_t pos = frozen != options.frozen_inputs.end() ? SIZE_MAX : position++;
    const std::string label = absl::StrCat("graph input '", in.name(), "'");
    if (!in.has_type() || !in.type().has_tensor_type())
      return absl::UnimplementedError(absl::StrCat(label, ": only tensor inputs are supported"));
    const onnx::TypeProto::Tensor& tt = in.type().tensor_type();
    absl::StatusOr<int32_t> dtype = DTypeFromOnnx(tt.elem_type());
    if (!dtype.ok()) return WithPrefix(dtype.status(), label);
    std::vector<int64_t> shape;
    if (frozen != options.frozen_inputs.end()) used_frozen.insert(in.name());
    if (auto it = options.input_shapes.find(in.name()); it != options.input_shapes.end()) {
      shape = it->second;
      used_overrides.insert(in.name());
      RETURN_IF_ERROR(
          CheckGivenShape(label, tt, shape, absl::StrCat("--input-shape ", in.name(), "=", absl::StrJoin(shape, ","))));
    } else if (pos < options.positional_input_shapes.size() && options.positional_input_shapes[pos]) {
      shape = *options.positional_input_shapes[pos];
      RETURN_IF_ERROR(
          CheckGivenShape(label, tt, shape, absl::StrCat("the shape ", DimsText(shape), " given for input ", pos)));
    } else {
      bool fixed = tt.has_shape();
      for (const onnx::TensorShapeProto::Dimension& d : tt.shape().dim()) {
        fixed = fixed && IsFixed(d);
        shape.push_back(d.dim_value());
      }
      if (!fixed && frozen != options.frozen_inputs.end()) {
        ASSIGN_OR_RETURN(shape, FrozenShape(label, tt, frozen->second.size()));
        fixed = true;
      }
      if (!fixed) {
        dynamic.push_back(absl::StrCat("'", in.name(), "' ", DeclaredText(tt)));
        advice.push_back(ExampleFlag(in.name(), tt));
        dynamic_names.push_back(in.name());
        if (!tt.has_shape()) {
          diag.MarkMissing(in.name());
          continue;
        }
        shape.clear();
        for (const onnx::TensorShapeProto::Dimension& d : tt.shape().dim())
          shape.push_back(IsFixed(d) ? d.dim_value() : 1);
        diag.set_provisional();
      }
    }
    for (int64_t d : shape)
      if (d < 0) return absl::InvalidArgumentError(absl::StrCat(label, ": negative dimension"));
    if (ctx.Lookup(in.name())) return absl::InvalidArgumentError(absl::StrCat(label, " is defined twice"));
    const int32_t t = ctx.AddInput(in.name(), *dtype, shape);
    if (pos < options.positional_input_values.size() && options.positional_input_values[pos])
      ctx.SetFreezableValue(t, *options.positional_input_values[pos]);
    ctx.Bind(in.name(), t);
    if (frozen != options.frozen_inputs.end()) RETURN_IF_ERROR(Freeze(label, t, frozen->second, ctx));
  }
  for (const auto& [name, values] : options.frozen_inputs)
    if (!used_frozen.count(name))
      return absl::InvalidArgumentError(absl::StrCat("--freeze-input names '", name, "', which is not a graph input"));
  for (const auto& [name, shape] : options.input_shapes)
    if (!used_overrides.count(name))
      return absl::InvalidArgumentError(absl::StrCat("--input-shape names '", name, "', which is not a graph input"));
  if (!dynamic.empty()) {
    ImportDiagnostic d;
    d.kind = "dynamic_input";
    d.count = static_cast<int64_t>(dynamic.size());
    d.nodes.assign(dynamic_names.begin(), dynamic_names.begin() + std::min(dynamic_names.size(), kMaxDiagnosticNodes));
    d.message = absl::StrCat(dynamic.size() == 1 ? "graph input " : absl::StrCat(dynamic.size(), " graph inputs "),
                             absl::StrJoin(dynamic, ", "), dynamic.size() == 1 ? " has" : " have",
                             " dynamic dimensions, and every shape must be static");
    d.hint = absl::StrCat("give ", dynamic.size() == 1 ? "it" : "each", " a shape, for example ",
                          absl::StrJoin(advice, " "), " (the dynamic dimensions set to 1)");
    absl::Status s = ProblemError(d.kind, d.message, d.hint);
    s.SetPayload(kDynamicInputsPayload, absl::Cord(absl::StrJoin(dynamic, ", ")));
    diag.Add(std::move(d), std::move(s));
  }
  return absl::OkStatus();
}

absl::Status ImportNode(const onnx::NodeProto& node, int index, ImportContext& ctx) {
  const std::string label = NodeLabel(node, index);
  RETURN_IF_ERROR(CheckConverterExists(node, label));
  auto it = Converters().find(node.op_type());
  std::vector<int32_t> inputs;
  for (const std::string& name : node.input()) {
    if (name.empty()) {
      inputs.push_back(-1);
      continue;
    }
    std::optional<int32_t> t = ctx.Lookup(name);
    if (!t)
      return absl::InvalidArgumentError(
          absl::StrCat(label, ": input '", name, "' is not a graph input, initializer or earlier node output"));
    inputs.push_back(*t);
  }
  ctx.SetCurrentNode(node.name().empty() ? absl::StrCat(node.op_type(), "_", index) : node.name());
  const int32_t first_new = static_cast<int32_t>(ctx.graph().tensors.size());
  Node n(node, std::move(inputs), ctx.payloads());
  absl::StatusOr<std::vector<int32_t>> outputs = it->second(ctx, n);
  if (!n.error().ok()) return WithPrefix(n.error(), label);
  if (!outputs.ok()) return WithPrefix(outputs.status(), label);
  for (int i = 0; i < node.output_size(); ++i) {
    const std::string& name = node.output(i);
    if (name.empty()) continue;
    const int32_t t = static_cast<size_t>(i) < outputs->size() ? (*outputs)[i] : -1;
    if (t < 0) return absl::UnimplementedError(absl::StrCat(label, ": output ", i, " ('", name, "') unsupported"));
    if (t >= first_new) ctx.graph().tensors[t].name = ctx.scope() + name;
    ctx.Bind(name, t);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckUnrolledFolding(const ImportContext& ctx, int64_t base) {
  const int64_t limit = ctx.max_folded_bytes() > INT64_MAX / kUnrolledFoldFactor
                            ? INT64_MAX
                            : ctx.max_folded_bytes() * kUnrolledFoldFactor;
  if (ctx.folded_bytes() - base <= limit) return absl::OkStatus();
  return absl::ResourceExhaustedError(
      absl::StrCat("unrolled steps folded ", ctx.folded_bytes() - base, " bytes of constants at import, above ",
                   kUnrolledFoldFactor, " x the import budget (", limit, " bytes; tessera import --max-folded-bytes)"));
}

absl::StatusOr<std::vector<int32_t>> ImportSubgraph(const onnx::GraphProto& g, ImportContext& ctx) {
  if (ctx.subgraph_depth >= kMaxSubgraphDepth)
    return absl::UnimplementedError(absl::StrCat("subgraphs nested deeper than ", kMaxSubgraphDepth));
  if (g.sparse_initializer_size() > 0) return absl::UnimplementedError("sparse initializers unsupported");
  if (g.node_size() > kMaxSubgraphNodes - ctx.subgraph_nodes)
    return absl::ResourceExhaustedError(
        absl::StrCat("unrolled subgraphs would import more than ", kMaxSubgraphNodes, " nodes (the unrolling limit)"));
  ctx.subgraph_nodes += g.node_size();
  for (const onnx::TensorProto& init : g.initializer()) {
    ASSIGN_OR_RETURN(ConvertedTensor c, ConvertTensorProtoView(init, ctx.payloads()));
    c.host.name = ctx.scope() + init.name();
    ctx.Bind(init.name(), ctx.AddConstant(std::move(c)));
  }
  if (ctx.subgraph_depth == 0) ctx.unroll_base = ctx.folded_bytes();
  ++ctx.subgraph_depth;
  absl::Status status;
  for (int i = 0; i < g.node_size() && status.ok(); ++i) {
    status = ImportNode(g.node(i), i, ctx);
    if (status.ok()) status = CheckUnrolledFolding(ctx, ctx.unroll_base);
  }
  --ctx.subgraph_depth;
  RETURN_IF_ERROR(status);
  std::vector<int32_t> outputs;
  for (const onnx::ValueInfoProto& out : g.output()) {
    std::optional<int32_t> t = ctx.Lookup(out.name());
    if (!t) return absl::InvalidArgumentError(absl::StrCat("subgraph output '", out.name(), "' is never produced"));
    outputs.push_back(*t);
  }
  return outputs;
}

namespace {

// The default domain's opset. One that is missing (with nodes of that
// domain) or out of range is a problem to report; the nodes are then
// converted at the nearest supported opset, to find the other problems.
absl::StatusOr<int64_t> OpsetOrProblem(const onnx::ModelProto& model, DiagnosticsCollector& diag) {
  absl::StatusOr<int64_t> opset = DefaultDomainOpset(model);
  if (opset.ok() || opset.status().code() != absl::StatusCode::kUnimplemented) return opset;
  ImportDiagnostic d;
  d.kind = "unsupported_opset";
  for (int i = 0; i < model.graph().node_size(); ++i) {
    const onnx::NodeProto& node = model.graph().node(i);
    if (!node.domain().empty() && node.domain() != "ai.onnx") continue;
    if (d.nodes.size() < kMaxDiagnosticNodes) d.nodes.push_back(NodeName(node, i));
    ++d.count;
  }
  int64_t version = -1;
  for (const onnx::OperatorSetIdProto& id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx") version = id.version();
  if (version < 0 && d.count == 0) return kMaxOpset;  // only other domains' nodes: they are the problems
  d.message = std::string(opset.status().message());
  d.hint = absl::StrCat("export the model at opset ", kMinOpset, "..", kMaxOpset,
                        " (torch.onnx.export(..., opset_version=17)), or convert it with "
                        "onnx.version_converter.convert_version(model, ",
                        kMaxOpset, ")");
  absl::Status s = ProblemError(d.kind, d.message, d.hint);
  diag.Add(std::move(d), std::move(s));
  return std::clamp<int64_t>(version < 0 ? kMaxOpset : version, kMinLegacyOpset, kMaxOpset);
}

// `owner`, when not null, owns `bytes`: large tensors then stay views of
// them (the graph keeps `owner`); otherwise they are copied.
absl::StatusOr<Graph> ImportUnguarded(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner,
                                      const ImportOptions& options, const std::string& fallback_name,
                                      std::vector<OptimizationStats>& report, DiagnosticsCollector& diag) {
  ASSIGN_OR_RETURN(ParsedModel parsed, ParseModelElided(bytes, options.large_payload_bytes));
  const onnx::ModelProto& model = parsed.proto;
  ModelPayloads payloads{std::move(parsed.payloads), std::move(owner)};
  const onnx::GraphProto& g = model.graph();
  ASSIGN_OR_RETURN(int64_t opset, OpsetOrProblem(model, diag));
  if (options.max_folded_constant_bytes < 0)
    return absl::InvalidArgumentError("max_folded_constant_bytes must not be negative");
  ImportContext ctx(opset, options.max_folded_constant_bytes);
  ctx.set_payloads(&payloads);
  if (g.sparse_initializer_size() > 0) return absl::UnimplementedError("sparse initializers unsupported");
  for (const onnx::TensorProto& init : g.initializer()) {
    ASSIGN_OR_RETURN(ConvertedTensor c, ConvertTensorProtoView(init, &payloads));
    c.host.name = init.name();
    ctx.Bind(init.name(), ctx.AddConstant(std::move(c)));
  }
  RETURN_IF_ERROR(ImportInputs(g, options, ctx, diag));
  // Every node is tried: a problem is recorded and its outputs go missing.
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& node = g.node(i);
    const std::string label = NodeLabel(node, i), name = NodeName(node, i);
    absl::Status s = CheckConverterExists(node, label);
    if (s.ok() && diag.ReadsMissing(node)) {
      diag.AddUnchecked(name);
      diag.MarkOutputsMissing(node);
      continue;
    }
    if (s.ok()) s = ImportNode(node, i, ctx);
    if (s.ok()) continue;
    if (!diag.AddNodeFailure(name, node.op_type(), label, s)) return diag.WithHardError(s);
    diag.MarkOutputsMissing(node);
  }
  if (!diag.empty()) return diag.ToStatus();

  // Graph outputs. One produced by no op (an input, a constant, or a value
  // already listed) gets a copy, so each output is a distinct op result.
  std::set<int32_t> seen;
  std::vector<bool> produced(ctx.graph().tensors.size(), false);
  for (const Op& op : ctx.graph().ops)
    for (int32_t t : op.outputs) produced[t] = true;
  ctx.SetCurrentNode("output");
  for (const onnx::ValueInfoProto& out : g.output()) {
    std::optional<int32_t> t = ctx.Lookup(out.name());
    if (!t) return absl::InvalidArgumentError(absl::StrCat("graph output '", out.name(), "' is never produced"));
    int32_t id = *t;
    if (!produced[id] || seen.count(id)) {
      ASSIGN_OR_RETURN(id, ctx.Copy(id, /*no_fold=*/true));
      ctx.graph().tensors[id].name = out.name();
    }
    seen.insert(id);
    ctx.graph().outputs.push_back(id);
  }
  if (ctx.graph().outputs.empty()) return absl::InvalidArgumentError("ONNX graph has no outputs");

  // Inputs frozen into constants leave the input list.
  std::vector<int32_t> live_inputs;
  std::string frozen;
  for (size_t i = 0; i < ctx.graph().inputs.size(); ++i) {
    const int32_t t = ctx.graph().inputs[i];
    if (ctx.IsConstant(t))
      absl::StrAppend(&frozen, frozen.empty() ? "" : ",", i);
    else
      live_inputs.push_back(t);
  }
  ctx.graph().inputs = live_inputs;
  report.push_back({kConstantFoldingPass, ctx.folded_ops(), ctx.folded_ops()});
  Graph graph = std::move(ctx.graph());
  if (options.optimize) RunImportOptimizations(graph, report);
  graph.name = !g.name().empty() ? g.name() : fallback_name;
  graph.metadata.emplace_back("source", "onnx");
  graph.metadata.emplace_back("onnx.opset", absl::StrCat(opset));
  if (!model.producer_name().empty()) graph.metadata.emplace_back("onnx.producer", model.producer_name());
  if (!frozen.empty()) graph.metadata.emplace_back("onnx.frozen_inputs", frozen);
  PruneUnusedTensors(graph);
  RETURN_IF_ERROR(VerifyGraph(graph));
  return graph;
}

}  // namespace

namespace {

absl::StatusOr<Graph> ImportGuarded(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner,
                                    const ImportOptions& options, const std::string& fallback_name,
                                    std::vector<OptimizationStats>* out_optimizations) {
  std::vector<OptimizationStats> report;
  DiagnosticsCollector diag;
  if (options.out_diagnostics != nullptr) options.out_diagnostics->clear();
  absl::StatusOr<Graph> g = CatchAsStatus("ONNX import", [&]() -> absl::StatusOr<Graph> {
    RETURN_IF_ERROR(CheckBudget(options.budgets, &Budgets::max_model_bytes, bytes.size(), "the model file"));
    ASSIGN_OR_RETURN(Graph imported, ImportUnguarded(bytes, owner, options, fallback_name, report, diag));
    RETURN_IF_ERROR(CheckGraphBudgets(imported, options.budgets));
    return imported;
  });
  if (g.ok() && out_optimizations != nullptr) *out_optimizations = std::move(report);
  if (!g.ok() && options.out_diagnostics != nullptr) *options.out_diagnostics = diag.diagnostics();
  return g;
}

}  // namespace

absl::StatusOr<Graph> ImportOnnxBytes(std::span<const uint8_t> bytes, const ImportOptions& options,
                                      const std::string& fallback_name,
                                      std::vector<OptimizationStats>* out_optimizations) {
  return ImportGuarded(bytes, nullptr, options, fallback_name, out_optimizations);
}

absl::StatusOr<Graph> ImportOnnxShared(std::span<const uint8_t> bytes, std::shared_ptr<const void> owner,
                                       const ImportOptions& options, const std::string& fallback_name,
                                       std::vector<OptimizationStats>* out_optimizations) {
  return ImportGuarded(bytes, std::move(owner), options, fallback_name, out_optimizations);
}

absl::StatusOr<Graph> ImportOnnxFile(const std::string& path, const ImportOptions& options,
                                     std::vector<OptimizationStats>* out_optimizations) {
  RETURN_IF_ERROR(CheckModelFileBudget(options.budgets, path));
  ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file,
                   CatchAsStatus(absl::StrCat("reading '", path, "'"), [&] { return MappedFile::Open(path); }));
  const std::span<const uint8_t> bytes = file->bytes();
  absl::StatusOr<Graph> g = ImportOnnxShared(bytes, std::move(file), options, "onnx_model", out_optimizations);
  if (!g.ok()) {
    absl::Status named(g.status().code(), absl::StrCat("'", path, "': ", g.status().message()));
    // The payload (IsDynamicInputsError) survives the prefix.
    g.status().ForEachPayload([&](absl::string_view url, const absl::Cord& p) { named.SetPayload(url, p); });
    return named;
  }
  return g;
}

absl::Status ParseInputShapeFlag(const std::string& text, ImportOptions& options) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0)
    return absl::InvalidArgumentError(absl::StrCat("--input-shape wants NAME=D0,D1,..., got '", text, "'"));
  std::vector<int64_t> dims;
  const std::string dims_text = text.substr(eq + 1);
  if (!dims_text.empty()) {
    for (absl::string_view part : absl::StrSplit(dims_text, ',')) {
      int64_t d = 0;
      if (!absl::SimpleAtoi(part, &d) || d < 0)
        return absl::InvalidArgumentError(absl::StrCat("--input-shape: bad dimension '", part, "' in '", text, "'"));
      dims.push_back(d);
    }
  }
  options.input_shapes[text.substr(0, eq)] = std::move(dims);
  return absl::OkStatus();
}

absl::Status ParseFreezeInputFlag(const std::string& text, ImportOptions& options) {
  const size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
    return absl::InvalidArgumentError(absl::StrCat("--freeze-input wants NAME=VALUE[,VALUE...], got '", text, "'"));
  std::vector<double> values;
  for (absl::string_view part : absl::StrSplit(text.substr(eq + 1), ',')) {
    double v = 0;
    if (!absl::SimpleAtod(part, &v))
      return absl::InvalidArgumentError(absl::StrCat("--freeze-input: bad value '", part, "' in '", text, "'"));
    values.push_back(v);
  }
  options.frozen_inputs[text.substr(0, eq)] = std::move(values);
  return absl::OkStatus();
}

bool IsDynamicInputsError(const absl::Status& status) { return status.GetPayload(kDynamicInputsPayload).has_value(); }

bool OnnxImportAvailable() { return true; }

}  // namespace tessera::onnx_import
