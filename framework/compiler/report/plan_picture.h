// The partition picture: the partitioned graph drawn with each op coloured
// by the device it runs on, the cuts in bold red labelled with the bytes
// that cross them, and the modelled latency beside it. Two forms:
//  * Graphviz DOT (a cluster per partition), for `dot -Tsvg`;
//  * one self-contained HTML page (inline CSS and SVG, a layered layout
//    computed here, no scripts, fonts or anything fetched from a network),
//    for machines without Graphviz.
// Tensor, graph and vendor names come from untrusted files: everything
// they reach is XML-escaped.
#ifndef TESSERA_FRAMEWORK_COMPILER_REPORT_PLAN_PICTURE_H_
#define TESSERA_FRAMEWORK_COMPILER_REPORT_PLAN_PICTURE_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "framework/compiler/compile/compiled_graph.h"
#include "framework/compiler/report/partition_report.h"

namespace tessera {

// What the picture calls an op that was a DISPATCH op before this plan
// (compiled by an earlier `tessera compile`): it runs where its bytecode
// says, not on a vendor this plan chose.
inline constexpr char kPrecompiledVendor[] = "dispatch";

// Fill colour ("#rrggbb") for a vendor, by its role in `accelerators` (the
// priority order the plan used, the fallback last), never by its name: the
// first accelerator blue, the second green, the third purple, the fourth
// pink, the fallback orange, precompiled DISPATCH ops grey. A vendor the
// list does not name, or a fifth accelerator, gets a palette colour hashed
// from its name, so it keeps its colour from one picture to the next.
std::string VendorFillColour(absl::string_view vendor, const std::vector<std::string>& accelerators);

// `text` safe inside XML/HTML text and attribute values (also Graphviz
// HTML-like labels): & < > " ' become entities; control characters and
// bytes that are not valid UTF-8 become the visible text "\xNN".
std::string XmlEscape(absl::string_view text);

// The picture of `model.source` partitioned by `model.plan`; `report` (of
// the same model) gives the legend its figures. A model whose plan does not
// cover its source graph (compiled elsewhere) is drawn uncoloured.
std::string PlanPictureDot(const CompiledGraph& model, const PartitionReport& report);
std::string PlanPictureHtml(const CompiledGraph& model, const PartitionReport& report);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_COMPILER_REPORT_PLAN_PICTURE_H_
