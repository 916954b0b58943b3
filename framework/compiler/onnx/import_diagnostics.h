// Diagnostics: every problem that stops an ONNX import, found in one pass.
// The importer does not stop at the first node it cannot
// convert: it records the problem here, marks that node's outputs as
// missing, and converts on. Nodes fed by a missing value cannot be checked
// and are listed as "unchecked"; a dynamic input is given its dims as 1 (the
// --input-shape advice) so the nodes after it are still checked. The
// import as a whole fails, with one error naming every problem group
// (ImportOptions::out_diagnostics has them as data).
#ifndef TESSERA_FRAMEWORK_COMPILER_ONNX_IMPORT_DIAGNOSTICS_H_
#define TESSERA_FRAMEWORK_COMPILER_ONNX_IMPORT_DIAGNOSTICS_H_

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <onnx.pb.h>
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "framework/compiler/onnx/import_context.h"
#include "framework/compiler/onnx/onnx_importer.h"

namespace tessera::onnx_import {

// Payloads on a problem's error, read by the collector (they survive the
// node-label prefixes of nested subgraphs: WithPrefix copies them).
inline constexpr char kProblemKindPayload[] = "tessera.onnx/problem-kind";
inline constexpr char kProblemHintPayload[] = "tessera.onnx/problem-hint";
// "domain\nop_type\nnode name" of an op without converter (maybe inside a subgraph).
inline constexpr char kProblemOpPayload[] = "tessera.onnx/problem-op";

// Unimplemented "<message>; <hint>", carrying kind and hint.
absl::Status ProblemError(absl::string_view kind, absl::string_view message, absl::string_view hint);

// Unimplemented (kind dynamic_value): `what` + `verb` (" does not fold to a
// constant") naming the graph inputs tensor `t` depends on, with a
// --freeze-input hint for them.
absl::Status NotConstantError(const ImportContext& ctx, int32_t t, absl::string_view what, absl::string_view verb);

// OK when `node` has a converter; else the unsupported_op error (labelled).
absl::Status CheckConverterExists(const onnx::NodeProto& node, const std::string& label);

// `prefix: message`, keeping the code and every payload.
absl::Status WithPrefix(const absl::Status& s, absl::string_view prefix);

// The shell-safe NAME=VALUE of a flag's value (names may hold spaces).
std::string ShellWord(const std::string& s);

class DiagnosticsCollector {
 public:
  // A graph-level problem (opset, dynamic inputs); `original` is the error
  // the import returns when it is the only problem.
  void Add(ImportDiagnostic d, absl::Status original);
  // A top-level node that failed with `status` (its label prefixed). False
  // for a hard error (a malformed model: not a question of support), which
  // the import returns at once; after provisional shapes such an error may
  // come from the dims set to 1, so the node is listed as unchecked instead.
  bool AddNodeFailure(const std::string& name, const std::string& op_type, const std::string& label,
                      const absl::Status& status);
  void AddUnchecked(const std::string& name);
  // Dynamic inputs were given provisional dims (1).
  void set_provisional() { provisional_ = true; }

  // Missing values: the outputs of a node that failed, a dynamic input of
  // unknown rank.
  void MarkMissing(const std::string& value) { missing_.insert(value); }
  void MarkOutputsMissing(const onnx::NodeProto& node);
  // True when the node, or a subgraph of it, reads a missing value.
  bool ReadsMissing(const onnx::NodeProto& node) const;

  bool empty() const { return groups_.empty(); }
  std::vector<ImportDiagnostic> diagnostics() const;
  // The import's error: a lone problem's own error (with its hint), else
  // one line per group.
  absl::Status ToStatus() const;
  // A hard error, with the problems met before it.
  absl::Status WithHardError(const absl::Status& hard) const;

 private:
  struct Group {
    ImportDiagnostic d;
    absl::Status first;
  };
  Group& GroupFor(const std::string& key, ImportDiagnostic d, const absl::Status& status);
  std::string Lines(size_t problems) const;

  std::vector<Group> groups_;
  std::map<std::string, size_t> index_;
  std::set<std::string> missing_;
  bool provisional_ = false;
};

}  // namespace tessera::onnx_import

#endif  // TESSERA_FRAMEWORK_COMPILER_ONNX_IMPORT_DIAGNOSTICS_H_
