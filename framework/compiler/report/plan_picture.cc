#include "framework/compiler/report/plan_picture.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "framework/core/base/dtype.h"
#include "tessera/ops.h"

namespace tessera {

std::string VendorFillColour(absl::string_view vendor, const std::vector<std::string>& accelerators) {
  // The roles' colours (docs/cli.md): accelerators in priority order, then
  // the fallback, then DISPATCH ops that were compiled before this plan.
  static constexpr const char* kAcceleratorColours[] = {"#8ecae6", "#b5e48c", "#cdb4db", "#ffafcc"};
  static constexpr const char* kFallbackColour = "#ffd6a5";
  static constexpr const char* kPrecompiledColour = "#d9d9d9";
  if (vendor.empty()) return "#ffffff";
  if (vendor == kPrecompiledVendor) return kPrecompiledColour;
  const auto at = std::find(accelerators.begin(), accelerators.end(), vendor);
  if (at != accelerators.end()) {
    const size_t rank = static_cast<size_t>(at - accelerators.begin());
    if (rank + 1 == accelerators.size()) return kFallbackColour;  // the fallback comes last
    if (rank < std::size(kAcceleratorColours)) return kAcceleratorColours[rank];
  }
  // Past the fourth accelerator, or a vendor the list does not name: a
  // palette colour picked by an FNV-1a hash of the name, stable across runs
  // and platforms (std::hash is neither).
  static constexpr const char* kPalette[] = {"#a2d2ff", "#fdffb6", "#caffbf", "#9bf6ff",
                                             "#ffc6ff", "#e9c46a", "#f4a261", "#90be6d"};
  uint32_t h = 2166136261u;
  for (unsigned char c : vendor) h = (h ^ c) * 16777619u;
  return kPalette[h % std::size(kPalette)];
}

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 (overlongs,
// surrogates and code points past U+10FFFF are invalid too).
size_t Utf8Length(absl::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const auto cont = [&](size_t k) { return i + k < s.size() && (b(k) & 0xC0) == 0x80; };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (!cont(1) || !cont(2)) return 0;
    if (c == 0xE0 && b(1) < 0xA0) return 0;   // overlong
    if (c == 0xED && b(1) >= 0xA0) return 0;  // surrogate
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (!cont(1) || !cont(2) || !cont(3)) return 0;
    if (c == 0xF0 && b(1) < 0x90) return 0;
    if (c == 0xF4 && b(1) >= 0x90) return 0;
    return 4;
  }
  return 0;
}

}  // namespace

std::string XmlEscape(absl::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const size_t n = Utf8Length(text, i);
    if (n == 0 || c < 0x20 || c == 0x7f || (c == 0xC2 && static_cast<unsigned char>(text[i + 1]) < 0xA0)) {
      // Not allowed in XML 1.0 (controls, C1 controls) or not UTF-8.
      absl::StrAppendFormat(&out, "\\x%02x", c);
      ++i;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out.append(text.data() + i, n);
    }
    i += n;
  }
  return out;
}

namespace {

// A tensor from the op that produces it to one that reads it.
struct PictureEdge {
  int32_t from_op = -1, to_op = -1;
  int32_t tensor = -1;
  bool cut = false;       // producer and consumer run in different units
  bool labelled = false;  // the first edge of its (tensor, consumer unit): carries the bytes
  uint64_t bytes = 0;
};

// What both pictures draw, worked out from the graph and the plan (not
// from the report, so the picture and the report check each other).
struct Picture {
  bool covered = false;             // the plan covers the graph
  std::vector<int32_t> unit;        // per op: partition index, -1 = existing DISPATCH
  std::vector<std::string> vendor;  // per op
  std::vector<PictureEdge> edges;
};

Picture Analyse(const CompiledGraph& model) {
  const Graph& g = model.source;
  const PartitionPlan& plan = model.plan;
  Picture p;
  p.covered = plan.op_partition.size() == g.ops.size();
  p.unit.assign(g.ops.size(), -1);
  p.vendor.resize(g.ops.size());
  for (size_t o = 0; o < g.ops.size(); ++o) {
    if (!p.covered) continue;
    const int32_t u = plan.op_partition[o];
    p.unit[o] = u >= 0 && static_cast<size_t>(u) < plan.partitions.size() ? u : -1;
    p.vendor[o] = p.unit[o] >= 0 ? plan.partitions[u].vendor : std::string(kPrecompiledVendor);
  }
  const std::vector<int32_t> producer = g.ProducerIndex();
  std::set<std::pair<int32_t, int32_t>> labelled;  // (tensor, consumer unit)
  for (size_t o = 0; o < g.ops.size(); ++o)
    for (int32_t t : g.ops[o].inputs) {
      if (t < 0 || static_cast<size_t>(t) >= g.tensors.size() || g.tensors[t].is_constant) continue;
      const int32_t from = producer[t];
      if (from < 0) continue;  // a model input
      PictureEdge e{from, static_cast<int32_t>(o), t, false, false, g.tensors[t].byte_size()};
      e.cut = p.covered && p.unit[from] != p.unit[o];
      e.labelled = e.cut && labelled.emplace(t, p.unit[o]).second;
      p.edges.push_back(e);
    }
  return p;
}

std::string Us(double us) { return us < 0 ? std::string("n/a") : absl::StrFormat("%.2f us", us); }

// The latency summary, one line each (already escaped).
std::vector<std::string> LegendLines(const PartitionReport& r) {
  std::vector<std::string> lines;
  if (!r.policy.empty()) {
    lines.push_back(absl::StrCat("modelled latency ", Us(r.modeled_latency_us), " (policy ", XmlEscape(r.policy),
                                 r.policy == "cost" ? absl::StrCat(", kept ", XmlEscape(r.chosen)) : "", ")"));
    lines.push_back(absl::StrFormat("= compute %.2f + dispatch %.2f + transfer %.2f us", r.compute_us, r.dispatch_us,
                                    r.transfer_us));
    lines.push_back(absl::StrCat("baselines: cpu only ", Us(r.modeled_latency_us_cpu_only), ", greedy ",
                                 Us(r.modeled_latency_us_greedy)));
  }
  lines.push_back(
      absl::StrFormat("%d partitions, %d cuts, %d bytes cross", r.partitions.size(), r.cuts.size(), r.cut_bytes));
  return lines;
}

std::string OpLabel(const Op& op) { return absl::StrCat(XmlEscape(OpTypeName(op.type)), " #", op.id); }

// The vendors drawn, in order of first appearance.
std::vector<std::string> Vendors(const Picture& p) {
  std::vector<std::string> out;
  for (const std::string& v : p.vendor)
    if (!v.empty() && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

}  // namespace

std::string PlanPictureDot(const CompiledGraph& model, const PartitionReport& report) {
  const Graph& g = model.source;
  const Picture p = Analyse(model);
  std::string out = "digraph plan {\n";
  absl::StrAppend(&out, "  graph [rankdir=TB, fontname=\"Helvetica\", fontsize=11, labelloc=t, label=<",
                  XmlEscape(g.name.empty() ? "model" : g.name), ">];\n",
                  "  node [shape=box, style=\"filled,rounded\", fillcolor=\"#ffffff\", fontname=\"Helvetica\", "
                  "fontsize=10];\n",
                  "  edge [color=\"#555555\", arrowsize=0.6, fontname=\"Helvetica\", fontsize=9];\n");
  // Ops in a partition sit in its cluster (filled with the vendor's
  // colour); existing DISPATCH ops stand alone, filled with theirs.
  std::vector<std::vector<size_t>> members(model.plan.partitions.size());
  for (size_t o = 0; o < g.ops.size(); ++o)
    if (p.unit[o] >= 0) members[p.unit[o]].push_back(o);
  for (size_t u = 0; u < members.size(); ++u) {
    const PlannedPartition& part = model.plan.partitions[u];
    std::string detail;
    if (u < report.partitions.size()) {
      const ReportedPartition& rp = report.partitions[u];
      detail = absl::StrCat("<br/>", rp.memory.empty() ? "" : absl::StrCat(XmlEscape(rp.memory), ", "),
                            absl::StrFormat("compute %.2f us", rp.compute_us));
    }
    absl::StrAppend(&out, "  subgraph cluster_p", u, " {\n    label=<#", u, " ", XmlEscape(part.vendor), detail,
                    ">;\n    style=\"filled,rounded\"; fillcolor=\"", VendorFillColour(part.vendor, model.accelerators),
                    "\"; color=\"#666666\";\n");
    for (size_t o : members[u]) absl::StrAppend(&out, "    op", o, " [label=<", OpLabel(g.ops[o]), ">];\n");
    absl::StrAppend(&out, "  }\n");
  }
  for (size_t o = 0; o < g.ops.size(); ++o)
    if (p.unit[o] < 0)
      absl::StrAppend(&out, "  op", o, " [label=<", OpLabel(g.ops[o]), ">, fillcolor=\"",
                      VendorFillColour(p.vendor[o], model.accelerators), "\"];\n");
  for (const PictureEdge& e : p.edges) {
    absl::StrAppend(&out, "  op", e.from_op, " -> op", e.to_op);
    if (e.cut) {
      absl::StrAppend(&out, " [color=\"#d62728\", penwidth=3, fontcolor=\"#d62728\"");
      if (e.labelled) absl::StrAppend(&out, ", label=<", e.bytes, " B<br/>", XmlEscape(g.tensors[e.tensor].name), ">");
      absl::StrAppend(&out, "]");
    }
    absl::StrAppend(&out, ";\n");
  }
  // The legend: what each colour means and what the plan is modelled to cost.
  absl::StrAppend(&out,
                  "  legend [shape=plaintext, style=\"\", label=<<table border=\"0\" cellborder=\"1\" "
                  "cellspacing=\"0\" cellpadding=\"4\">\n");
  for (const std::string& line : LegendLines(report))
    absl::StrAppend(&out, "    <tr><td colspan=\"2\" align=\"left\">", line, "</td></tr>\n");
  for (const std::string& v : Vendors(p))
    absl::StrAppend(&out, "    <tr><td bgcolor=\"", VendorFillColour(v, model.accelerators),
                    "\">  </td><td align=\"left\">", XmlEscape(v), "</td></tr>\n");
  absl::StrAppend(&out,
                  "    <tr><td><font color=\"#d62728\"><b>&#8594;</b></font></td><td align=\"left\">cut "
                  "(bytes crossing)</td></tr>\n  </table>>];\n}\n");
  return out;
}

namespace {

// The layered layout: an op's layer is the longest path to it from the
// model inputs; within a layer, ops keep graph order; rows are centred.
struct Layout {
  std::vector<int> layer, column;
  std::vector<int> layer_size;
};

Layout LayOut(const Graph& g, const Picture& p) {
  Layout l;
  l.layer.assign(g.ops.size(), 0);
  l.column.assign(g.ops.size(), 0);
  // Ops are topologically ordered: every edge's producer is laid out first.
  for (const PictureEdge& e : p.edges) l.layer[e.to_op] = std::max(l.layer[e.to_op], l.layer[e.from_op] + 1);
  for (size_t o = 0; o < g.ops.size(); ++o) {
    if (static_cast<size_t>(l.layer[o]) >= l.layer_size.size()) l.layer_size.resize(l.layer[o] + 1, 0);
    l.column[o] = l.layer_size[l.layer[o]]++;
  }
  return l;
}

constexpr int kNodeW = 170, kNodeH = 40, kGapX = 30, kGapY = 64, kMargin = 24;

void AppendSvg(const CompiledGraph& model, const Picture& p, std::string& out) {
  const Graph& g = model.source;
  const Layout l = LayOut(g, p);
  const int widest = l.layer_size.empty() ? 0 : *std::max_element(l.layer_size.begin(), l.layer_size.end());
  const int width = 2 * kMargin + std::max(1, widest) * (kNodeW + kGapX) - kGapX;
  const int height = 2 * kMargin + std::max<int>(1, l.layer_size.size()) * (kNodeH + kGapY) - kGapY;
  const auto x_of = [&](size_t o) {
    return kMargin + (widest - l.layer_size[l.layer[o]]) * (kNodeW + kGapX) / 2 + l.column[o] * (kNodeW + kGapX);
  };
  const auto y_of = [&](size_t o) { return kMargin + l.layer[o] * (kNodeH + kGapY); };
  absl::StrAppendFormat(&out,
                        "<svg id=\"plan-graph\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n"
                        "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"6\" "
                        "markerHeight=\"6\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" "
                        "fill=\"#555\"/></marker>"
                        "<marker id=\"arrow-cut\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"5\" "
                        "markerHeight=\"5\" orient=\"auto-start-reverse\"><path d=\"M 0 0 L 10 5 L 0 10 z\" "
                        "fill=\"#d62728\"/></marker></defs>\n",
                        width, height, width, height);
  // Edges under the nodes; cut labels over everything.
  std::string labels;
  for (const PictureEdge& e : p.edges) {
    const int x1 = x_of(e.from_op) + kNodeW / 2, y1 = y_of(e.from_op) + kNodeH;
    const int x2 = x_of(e.to_op) + kNodeW / 2, y2 = y_of(e.to_op);
    const std::string name = XmlEscape(g.tensors[e.tensor].name);
    absl::StrAppendFormat(&out,
                          "<line class=\"%s\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" marker-end=\"url(#%s)\">"
                          "<title>%s (%d B)</title></line>\n",
                          e.cut ? "edge cut" : "edge", x1, y1, x2, y2, e.cut ? "arrow-cut" : "arrow", name, e.bytes);
    if (e.labelled)
      absl::StrAppendFormat(&labels, "<text class=\"cut-label\" x=\"%d\" y=\"%d\">%d B<title>%s</title></text>\n",
                            (x1 + x2) / 2, (y1 + y2) / 2 + 4, e.bytes, name);
  }
  for (size_t o = 0; o < g.ops.size(); ++o) {
    const int x = x_of(o), y = y_of(o);
    const std::string where =
        p.unit[o] >= 0 ? absl::StrCat("#", p.unit[o], " ", XmlEscape(p.vendor[o])) : XmlEscape(p.vendor[o]);
    absl::StrAppendFormat(&out,
                          "<g class=\"op\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\" fill=\"%s\"/>"
                          "<text x=\"%d\" y=\"%d\">%s</text><text class=\"where\" x=\"%d\" y=\"%d\">%s</text></g>\n",
                          x, y, kNodeW, kNodeH, VendorFillColour(p.vendor[o], model.accelerators), x + kNodeW / 2,
                          y + 17, OpLabel(g.ops[o]), x + kNodeW / 2, y + 32, where);
  }
  absl::StrAppend(&out, labels, "</svg>\n");
}

void AppendRow(std::string& out, const std::vector<std::string>& cells) {
  absl::StrAppend(&out, "<tr><td>", absl::StrJoin(cells, "</td><td>"), "</td></tr>\n");
}

void AppendHead(std::string& out, const std::string& id, const std::vector<std::string>& heads) {
  absl::StrAppend(&out, "<table id=\"", id, "\"><tr><th>", absl::StrJoin(heads, "</th><th>"), "</th></tr>\n");
}

std::string Unit(int32_t partition, const std::string& vendor) {
  return partition >= 0 ? absl::StrCat("#", partition, " ", XmlEscape(vendor)) : XmlEscape(vendor);
}

}  // namespace

std::string PlanPictureHtml(const CompiledGraph& model, const PartitionReport& r) {
  const Picture p = Analyse(model);
  const std::string title = XmlEscape(model.source.name.empty() ? "model" : model.source.name);
  // No network: a CSP that forbids every fetch, styles inline, no scripts.
  std::string out = absl::StrCat(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      "<title>partitioning of ",
      title,
      "</title>\n<style>\n"
      "body{font-family:sans-serif;margin:1.5em;color:#222}\n"
      "table{border-collapse:collapse;margin:0.5em 0 1.5em}\n"
      "td,th{border:1px solid #bbb;padding:3px 8px;text-align:left;font-size:13px}\n"
      ".swatch{display:inline-block;width:1em;height:1em;border:1px solid #666;vertical-align:middle}\n"
      ".graph{overflow:auto;border:1px solid #ddd}\n"
      "svg text{font-family:sans-serif;font-size:11px;text-anchor:middle}\n"
      "svg text.where{fill:#444;font-size:10px}\n"
      "svg rect{stroke:#666}\n"
      "svg line.edge{stroke:#555;stroke-width:1.2}\n"
      "svg line.cut{stroke:#d62728;stroke-width:3}\n"
      "svg text.cut-label{fill:#d62728;font-weight:bold;paint-order:stroke;stroke:#fff;stroke-width:3px}\n"
      "</style></head><body>\n<h1>partitioning of ",
      title, "</h1>\n<p id=\"latency\">");
  absl::StrAppend(&out, absl::StrJoin(LegendLines(r), "<br>\n"), "</p>\n<p>");
  for (const std::string& v : Vendors(p))
    absl::StrAppend(&out, "<span class=\"swatch\" style=\"background:", VendorFillColour(v, model.accelerators),
                    "\"></span> ", XmlEscape(v), " &nbsp; ");
  absl::StrAppend(&out, "<span style=\"color:#d62728;font-weight:bold\">&#8594; cut (bytes crossing)</span></p>\n",
                  "<div class=\"graph\">\n");
  AppendSvg(model, p, out);
  absl::StrAppend(&out, "</div>\n<h2>partitions</h2>\n");
  AppendHead(out, "partitions",
             {"#", "vendor", "ops", "op ids", "memory", "in B", "out B", "flops", "compute us", "dispatch us"});
  for (const ReportedPartition& rp : r.partitions)
    AppendRow(out, {absl::StrCat(rp.index),
                    absl::StrCat("<span class=\"swatch\" style=\"background:",
                                 VendorFillColour(rp.vendor, model.accelerators), "\"></span> ", XmlEscape(rp.vendor)),
                    absl::StrCat(rp.op_ids.size()), absl::StrJoin(rp.op_ids, ","), XmlEscape(rp.memory),
                    absl::StrCat(rp.input_bytes), absl::StrCat(rp.output_bytes), absl::StrFormat("%.0f", rp.flops),
                    absl::StrFormat("%.2f", rp.compute_us), absl::StrFormat("%.2f", rp.dispatch_us)});
  absl::StrAppend(&out, "</table>\n<h2>cuts</h2>\n");
  AppendHead(out, "cuts", {"tensor", "bytes", "from", "to"});
  for (const ReportedCut& c : r.cuts)
    AppendRow(out, {XmlEscape(c.tensor), absl::StrCat(c.bytes), Unit(c.from_partition, c.from_vendor),
                    Unit(c.to_partition, c.to_vendor)});
  absl::StrAppend(&out, "</table>\n<h2>conversions</h2>\n");
  AppendHead(out, "conversions", {"tensor", "from memory", "to memory", "bytes", "us"});
  for (const ReportedConversion& c : r.conversions)
    AppendRow(out, {XmlEscape(c.tensor), XmlEscape(c.from_memory), XmlEscape(c.to_memory), absl::StrCat(c.bytes),
                    absl::StrFormat("%.2f", c.us)});
  absl::StrAppend(&out, "</table>\n</body></html>\n");
  return out;
}

}  // namespace tessera
