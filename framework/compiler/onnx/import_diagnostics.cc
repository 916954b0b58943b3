#include "framework/compiler/onnx/import_diagnostics.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "framework/compiler/onnx/converters.h"

namespace tessera::onnx_import {
namespace {

constexpr char kUnsupportedOp[] = "unsupported_op";
constexpr char kDynamicInput[] = "dynamic_input";
constexpr char kDynamicValue[] = "dynamic_value";
constexpr char kUnsupportedAttribute[] = "unsupported_attribute";
constexpr char kUnchecked[] = "unchecked";

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string QualifiedOp(const std::string& domain, const std::string& op_type) {
  return IsDefaultDomain(domain) ? op_type : absl::StrCat(domain, "::", op_type);
}

std::string OpHint(const std::string& domain, const std::string& op_type) {
  if (!IsDefaultDomain(domain))
    return absl::StrCat("only the default ONNX domain is converted: export the model without ", domain,
                        " ops (onnxruntime's fused or contrib ops come from its optimizer: save the model before it)");
  return absl::StrCat("docs/onnx_import.md lists the ops that convert; export the model without ", op_type,
                      " or replace it by ops that do");
}

std::string AttributeHint(const std::string& op_type) {
  return absl::StrCat("docs/onnx_import.md says which forms of ", op_type,
                      " convert; export the model with one of them");
}

std::optional<std::string> Payload(const absl::Status& s, absl::string_view key) {
  absl::optional<absl::Cord> p = s.GetPayload(key);
  if (!p) return std::nullopt;
  return std::string(*p);
}

// The graph inputs a runtime tensor depends on, to say which to freeze.
std::vector<int32_t> FeedingInputs(const ImportContext& ctx, int32_t t) {
  std::map<int32_t, const Op*> producer;
  for (const Op& op : ctx.graph().ops)
    for (int32_t o : op.outputs) producer[o] = &op;
  std::set<int32_t> inputs(ctx.graph().inputs.begin(), ctx.graph().inputs.end()), seen;
  std::vector<int32_t> stack{t};
  std::vector<int32_t> found;
  while (!stack.empty()) {
    const int32_t x = stack.back();
    stack.pop_back();
    if (x < 0 || !seen.insert(x).second) continue;
    if (inputs.count(x) && !ctx.IsConstant(x)) found.push_back(x);
    if (auto it = producer.find(x); it != producer.end())
      for (int32_t in : it->second->inputs) stack.push_back(in);
  }
  return found;
}

// Every value name a node reads, its subgraphs' included (a branch may
// read enclosing names).
void ReadNames(const onnx::NodeProto& node, std::vector<std::string>& out) {
  for (const std::string& in : node.input()) out.push_back(in);
  for (const onnx::AttributeProto& a : node.attribute()) {
    if (a.has_g())
      for (const onnx::NodeProto& n : a.g().node()) ReadNames(n, out);
    for (const onnx::GraphProto& g : a.graphs())
      for (const onnx::NodeProto& n : g.node()) ReadNames(n, out);
  }
}

std::string Quoted(const std::vector<std::string>& names, size_t total) {
  std::vector<std::string> q;
  for (const std::string& n : names) q.push_back(absl::StrCat("'", n, "'"));
  return absl::StrCat(absl::StrJoin(q, ", "), total > names.size() ? ", ..." : "");
}

std::string Title(const ImportDiagnostic& d) {
  const std::string op = QualifiedOp(d.domain, d.op_type);
  if (d.kind == kUnsupportedOp) return absl::StrCat("unsupported op ", op);
  if (d.kind == kDynamicInput) return "dynamic inputs";
  if (d.kind == kDynamicValue) return absl::StrCat("dynamic value in ", op);
  if (d.kind == kUnsupportedAttribute) return absl::StrCat("unsupported attribute of ", op);
  if (d.kind == kUnchecked) return "not checked";
  return "unsupported opset";
}

}  // namespace

absl::Status ProblemError(absl::string_view kind, absl::string_view message, absl::string_view hint) {
  absl::Status s = absl::UnimplementedError(hint.empty() ? std::string(message) : absl::StrCat(message, "; ", hint));
  s.SetPayload(kProblemKindPayload, absl::Cord(kind));
  if (!hint.empty()) s.SetPayload(kProblemHintPayload, absl::Cord(hint));
  return s;
}

// An input of at most this many elements may be a setting (a sample
// rate, a mode flag) that an app fixes once, so freezing it is advice
// that works. A larger one carries data: a value computed from it changes
// with every run, and freezing it would bake one run's data into the model.
constexpr int64_t kMaxFreezableElements = 16;

absl::Status NotConstantError(const ImportContext& ctx, int32_t t, absl::string_view what, absl::string_view verb) {
  const std::vector<int32_t> feeding = FeedingInputs(ctx, t);
  std::vector<std::string> settings, data;
  for (int32_t x : feeding) {
    const std::string& name = ctx.tensor(x).name;
    const int64_t elements = ctx.tensor(x).element_count();
    if (elements > kMaxFreezableElements)
      data.push_back(absl::StrCat("'", name, "' (", elements, " elements)"));
    else
      settings.push_back(name);
  }
  std::string message = std::string(what) + std::string(verb);
  if (!feeding.empty()) {
    std::vector<std::string> quoted;
    for (int32_t x : feeding) quoted.push_back(absl::StrCat("'", ctx.tensor(x).name, "'"));
    absl::StrAppend(&message, ": it depends on graph input", feeding.size() > 1 ? "s " : " ",
                    absl::StrJoin(quoted, ", "));
  }
  if (!data.empty())
    return ProblemError(
        kDynamicValue, message,
        absl::StrCat("it is computed from the data of ", absl::StrJoin(data, ", "),
                     ", so it changes from run to run and freezing is no fix: Tessera converts static control flow "
                     "only; export the model with this value fixed, or split it here and run the parts in turn"));
  std::vector<std::string> flags;
  for (const std::string& name : settings)
    flags.push_back(absl::StrCat("--freeze-input ", ShellWord(absl::StrCat(name, "=VALUE"))));
  if (flags.empty()) flags.push_back("--freeze-input NAME=VALUE");
  return ProblemError(kDynamicValue, message,
                      absl::StrCat("freeze ", settings.size() > 1 ? "them" : "it", " with ", absl::StrJoin(flags, " "),
                                   " (the graph has static control flow)"));
}

absl::Status CheckConverterExists(const onnx::NodeProto& node, const std::string& label) {
  const bool default_domain = IsDefaultDomain(node.domain());
  if (default_domain && Converters().count(node.op_type())) return absl::OkStatus();
  const std::string op = QualifiedOp(node.domain(), node.op_type());
  absl::Status s = ProblemError(kUnsupportedOp, absl::StrCat(label, ": op ", op, " unsupported"),
                                OpHint(node.domain(), node.op_type()));
  s.SetPayload(kProblemOpPayload, absl::Cord(absl::StrCat(node.domain(), "\n", node.op_type(), "\n", node.name())));
  return s;
}

absl::Status WithPrefix(const absl::Status& s, absl::string_view prefix) {
  absl::Status out(s.code(), absl::StrCat(prefix, ": ", s.message()));
  s.ForEachPayload([&](absl::string_view url, const absl::Cord& p) { out.SetPayload(url, p); });
  return out;
}

std::string ShellWord(const std::string& s) {
  constexpr absl::string_view kPlain = "_.,:/=+-@%";
  bool plain = !s.empty();
  for (char c : s)
    plain = plain && (absl::ascii_isalnum(static_cast<unsigned char>(c)) || absl::StrContains(kPlain, c));
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// ---- the collector ----------------------------------------------------------

DiagnosticsCollector::Group& DiagnosticsCollector::GroupFor(const std::string& key, ImportDiagnostic d,
                                                            const absl::Status& status) {
  auto [it, added] = index_.emplace(key, groups_.size());
  if (added) groups_.push_back({std::move(d), status});
  return groups_[it->second];
}

void DiagnosticsCollector::Add(ImportDiagnostic d, absl::Status original) {
  const std::string key = absl::StrCat(d.kind, "\n", d.domain, "\n", d.message);
  GroupFor(key, std::move(d), original);
}

bool DiagnosticsCollector::AddNodeFailure(const std::string& name, const std::string& op_type, const std::string& label,
                                          const absl::Status& status) {
  std::optional<std::string> kind = Payload(status, kProblemKindPayload);
  if (!kind && status.code() != absl::StatusCode::kUnimplemented) {
    if (!provisional_) return false;
    AddUnchecked(name);
    return true;
  }
  ImportDiagnostic d;
  d.kind = kind.value_or(kUnsupportedAttribute);
  d.op_type = op_type;
  std::string node = name;
  if (std::optional<std::string> op = Payload(status, kProblemOpPayload)) {
    // The op without converter, which may sit in a subgraph of this node.
    std::vector<std::string> parts = absl::StrSplit(*op, absl::MaxSplits('\n', 2));
    parts.resize(3);
    d.domain = parts[0];
    d.op_type = parts[1];
    if (!parts[2].empty()) node = parts[2];
    d.message =
        absl::StrCat("op ", QualifiedOp(d.domain, d.op_type), " unsupported",
                     IsDefaultDomain(d.domain) ? " (no converter)"
                                               : absl::StrCat(" (the domain '", d.domain, "' is not converted)"));
  }
  d.hint = Payload(status, kProblemHintPayload)
               .value_or(d.kind == kUnsupportedOp ? OpHint(d.domain, d.op_type) : AttributeHint(d.op_type));
  if (d.message.empty()) {
    absl::string_view m = status.message();
    absl::ConsumePrefix(&m, absl::StrCat(label, ": "));
    absl::ConsumeSuffix(&m, absl::StrCat("; ", d.hint));
    d.message = std::string(m);
  }
  const std::string key = absl::StrCat(d.kind, "\n", d.domain, "\n", d.op_type, "\n", d.message);
  Group& g = GroupFor(key, d, status);
  ++g.d.count;
  if (g.d.nodes.size() < kMaxDiagnosticNodes) g.d.nodes.push_back(node);
  return true;
}

void DiagnosticsCollector::AddUnchecked(const std::string& name) {
  ImportDiagnostic d;
  d.kind = kUnchecked;
  d.message = "not converted: they read values that the problems above leave missing";
  d.hint = "fix the problems above, then import again: these nodes are checked once their inputs convert";
  Group& g = GroupFor(kUnchecked, std::move(d), absl::OkStatus());
  ++g.d.count;
  if (g.d.nodes.size() < kMaxDiagnosticNodes) g.d.nodes.push_back(name);
}

void DiagnosticsCollector::MarkOutputsMissing(const onnx::NodeProto& node) {
  for (const std::string& out : node.output())
    if (!out.empty()) missing_.insert(out);
}

bool DiagnosticsCollector::ReadsMissing(const onnx::NodeProto& node) const {
  if (missing_.empty()) return false;
  std::vector<std::string> names;
  ReadNames(node, names);
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return missing_.count(n) > 0; });
}

std::vector<ImportDiagnostic> DiagnosticsCollector::diagnostics() const {
  std::vector<ImportDiagnostic> out;
  for (const Group& g : groups_)
    if (g.d.kind != kUnchecked) out.push_back(g.d);
  // Unchecked nodes last: they depend on the problems before them.
  if (auto it = index_.find(kUnchecked); it != index_.end()) out.push_back(groups_[it->second].d);
  return out;
}

std::string DiagnosticsCollector::Lines(size_t problems) const {
  std::string text = absl::StrCat(problems, problems == 1 ? " problem stops" : " problems stop",
                                  " the import (tessera inspect MODEL --json lists them as data):");
  for (const ImportDiagnostic& d : diagnostics()) {
    const bool inputs = d.kind == kDynamicInput;
    absl::StrAppend(&text, "\n  ", Title(d), ", ", d.count, inputs ? " input" : " node", d.count == 1 ? "" : "s");
    if (!d.nodes.empty()) absl::StrAppend(&text, " (", Quoted(d.nodes, static_cast<size_t>(d.count)), ")");
    absl::StrAppend(&text, ": ", d.message, d.hint.empty() ? "" : "; ", d.hint);
  }
  return text;
}

absl::Status DiagnosticsCollector::ToStatus() const {
  std::vector<const Group*> problems;
  for (const Group& g : groups_)
    if (g.d.kind != kUnchecked) problems.push_back(&g);
  if (problems.empty()) return absl::OkStatus();
  const Group& only = *problems.front();
  if (problems.size() == 1 && (only.d.count == 1 || only.d.kind == kDynamicInput)) {
    // The lone problem's own error, as it always read, with its hint.
    if (only.first.GetPayload(kProblemHintPayload) || absl::StrContains(only.first.message(), only.d.hint))
      return only.first;
    absl::Status s(only.first.code(), absl::StrCat(only.first.message(), "; ", only.d.hint));
    only.first.ForEachPayload([&](absl::string_view url, const absl::Cord& p) { s.SetPayload(url, p); });
    return s;
  }
  absl::Status s = absl::UnimplementedError(Lines(problems.size()));
  // Still a dynamic-inputs error (IsDynamicInputsError): the app then asks
  // for shapes, e.g. from `run --inputs DIR`.
  for (const Group* g : problems)
    if (absl::optional<absl::Cord> p = g->first.GetPayload(kDynamicInputsPayload))
      s.SetPayload(kDynamicInputsPayload, *p);
  return s;
}

absl::Status DiagnosticsCollector::WithHardError(const absl::Status& hard) const {
  if (empty()) return hard;
  size_t problems = 0;
  for (const Group& g : groups_) problems += g.d.kind != kUnchecked;
  return absl::Status(hard.code(), absl::StrCat(hard.message(), "\nbesides, ", Lines(problems)));
}

}  // namespace tessera::onnx_import
