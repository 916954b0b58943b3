// Einsum (opset 12) onto TRANSPOSE / RESHAPE / MATMUL / REDUCE_SUM, exactly
// (the same products and sums, no reassociation beyond MATMUL's own):
//  * one operand: a sum over the letters the output drops, then a
//    transpose ("ij->ji", "ij->i", "ii"-free traces are refused, see below);
//  * two operands: letters only one operand has and the output drops are
//    summed first; the rest are batch letters (both operands and the
//    output), contracted letters (both operands, not the output) and free
//    letters (one operand and the output). A is transposed to
//    [batch, free_A, contracted], B to [batch, contracted, free_B], both
//    flattened to one M, K, N each, multiplied by MATMUL, unflattened and
//    transposed to the output order ("ij,jk->ik", "bij,bjk->bik",
//    "bhid,bhjd->bhij", "i,i->", "i,j->ij").
// Refused with the reason: an ellipsis ("..."), a letter repeated within
// one operand (a diagonal or trace), three or more operands, and sizes of
// one letter that differ between operands.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "framework/compiler/onnx/converters.h"
#include "framework/core/base/status_macros.h"
#include "tessera/common.h"
#include "tessera/ops.h"

namespace tessera::onnx_import {
namespace {

using Outputs = absl::StatusOr<std::vector<int32_t>>;

// One operand: its tensor and one letter per axis.
struct Term {
  int32_t tensor;
  std::string letters;
};

struct Equation {
  std::vector<std::string> inputs;
  std::string output;
};

absl::StatusOr<Equation> ParseEquation(const std::string& text) {
  std::string eq;
  for (char c : text)
    if (c != ' ') eq.push_back(c);
  if (eq.find("...") != std::string::npos)
    return Unsupported(absl::StrCat("Einsum '", text, "': an ellipsis ('...') is not mapped"));
  Equation e;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  size_t start = 0;
  while (true) {
    const size_t comma = lhs.find(',', start);
    e.inputs.push_back(lhs.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  for (const std::string& term : e.inputs) {
    for (size_t i = 0; i < term.size(); ++i) {
      if (!std::isalpha(static_cast<unsigned char>(term[i])))
        return absl::InvalidArgumentError(
            absl::StrCat("Einsum '", text, "': '", std::string(1, term[i]), "' is not a letter"));
      if (term.find(term[i], i + 1) != std::string::npos)
        return Unsupported(absl::StrCat("Einsum '", text, "': letter '", std::string(1, term[i]),
                                        "' repeats within operand '", term, "' (a diagonal or trace) is not mapped"));
    }
  }
  if (arrow != std::string::npos) {
    e.output = eq.substr(arrow + 2);
    for (size_t i = 0; i < e.output.size(); ++i) {
      const char c = e.output[i];
      const bool known = std::any_of(e.inputs.begin(), e.inputs.end(),
                                     [c](const std::string& t) { return t.find(c) != std::string::npos; });
      if (!known || e.output.find(c, i + 1) != std::string::npos)
        return absl::InvalidArgumentError(
            absl::StrCat("Einsum '", text, "': output letter '", std::string(1, c), "' is repeated or in no input"));
    }
  } else {  // implicit form: the letters used once, in alphabetical order
    std::string all;
    for (const std::string& t : e.inputs) all += t;
    for (char c : all)
      if (std::count(all.begin(), all.end(), c) == 1) e.output.push_back(c);
    std::sort(e.output.begin(), e.output.end());
  }
  return e;
}

bool Has(const std::string& s, char c) { return s.find(c) != std::string::npos; }

// Sums `t` over its letters that `keep` lacks (REDUCE_SUM, dims dropped).
absl::Status SumLettersNotIn(ImportContext& ctx, Term& t, const std::string& keep) {
  std::vector<int64_t> axes;
  std::string kept;
  for (size_t i = 0; i < t.letters.size(); ++i) {
    if (Has(keep, t.letters[i]))
      kept.push_back(t.letters[i]);
    else
      axes.push_back(static_cast<int64_t>(i));
  }
  if (axes.empty()) return absl::OkStatus();
  ASSIGN_OR_RETURN(t.tensor, ctx.Emit(TSR_OP_REDUCE_SUM, {t.tensor},
                                      {{TSR_ATTR_AXES, IntsAttr(axes)}, {TSR_ATTR_KEEP_DIMS, IntsAttr({0})}}));
  t.letters = kept;
  return absl::OkStatus();
}

// Transposes `t` so that its letters read `order` (a permutation of them).
absl::Status Permute(ImportContext& ctx, Term& t, const std::string& order) {
  if (t.letters == order) return absl::OkStatus();
  std::vector<int64_t> perm;
  for (char c : order) perm.push_back(static_cast<int64_t>(t.letters.find(c)));
  ASSIGN_OR_RETURN(t.tensor, ctx.Emit(TSR_OP_TRANSPOSE, {t.tensor}, {{TSR_ATTR_PERM, IntsAttr(perm)}}));
  t.letters = order;
  return absl::OkStatus();
}

// Letters of `from` that satisfy `pred`, in `from`'s order.
template <typename Pred>
std::string Select(const std::string& from, Pred pred) {
  std::string out;
  for (char c : from)
    if (pred(c)) out.push_back(c);
  return out;
}

Outputs Einsum(ImportContext& ctx, const Node& n) {
  const std::string text = n.String("equation", "");
  ASSIGN_OR_RETURN(Equation e, ParseEquation(text));
  if (e.inputs.size() != n.input_count())
    return absl::InvalidArgumentError(absl::StrCat("Einsum '", text, "' names ", e.inputs.size(),
                                                   " operands, the node has ", n.input_count(), " inputs"));
  if (e.inputs.size() > 2)
    return Unsupported(absl::StrCat("Einsum '", text, "' of ", e.inputs.size(), " operands (one or two are mapped)"));
  std::vector<Term> terms;
  std::map<char, int64_t> size;
  for (size_t i = 0; i < e.inputs.size(); ++i) {
    ASSIGN_OR_RETURN(int32_t t, Required(n, i));
    if (ctx.rank(t) != static_cast<int64_t>(e.inputs[i].size()))
      return absl::InvalidArgumentError(absl::StrCat("Einsum '", text, "': operand ", i, " has rank ", ctx.rank(t),
                                                     ", its term '", e.inputs[i], "' names ", e.inputs[i].size(),
                                                     " axes"));
    for (size_t d = 0; d < e.inputs[i].size(); ++d) {
      const char c = e.inputs[i][d];
      const int64_t dim = ctx.shape(t)[d];
      if (size.count(c) && size[c] != dim)
        return absl::InvalidArgumentError(
            absl::StrCat("Einsum '", text, "': letter '", std::string(1, c), "' is ", size[c], " and ", dim, " long"));
      size[c] = dim;
    }
    terms.push_back({t, e.inputs[i]});
  }
  if (terms.size() == 1) {
    const int32_t input = terms[0].tensor;
    RETURN_IF_ERROR(SumLettersNotIn(ctx, terms[0], e.output));
    RETURN_IF_ERROR(Permute(ctx, terms[0], e.output));
    if (terms[0].tensor != input) return std::vector<int32_t>{terms[0].tensor};
    ASSIGN_OR_RETURN(int32_t y, ctx.Copy(input));  // "ij->ij" still needs an op of its own
    return std::vector<int32_t>{y};
  }
  Term &a = terms[0], &b = terms[1];
  RETURN_IF_ERROR(SumLettersNotIn(ctx, a, e.output + b.letters));
  RETURN_IF_ERROR(SumLettersNotIn(ctx, b, e.output + a.letters));
  const std::string batch = Select(e.output, [&](char c) { return Has(a.letters, c) && Has(b.letters, c); });
  const std::string free_a = Select(e.output, [&](char c) { return Has(a.letters, c) && !Has(b.letters, c); });
  const std::string free_b = Select(e.output, [&](char c) { return !Has(a.letters, c) && Has(b.letters, c); });
  const std::string contracted = Select(a.letters, [&](char c) { return Has(b.letters, c) && !Has(e.output, c); });
  RETURN_IF_ERROR(Permute(ctx, a, batch + free_a + contracted));
  RETURN_IF_ERROR(Permute(ctx, b, batch + contracted + free_b));
  // Products of some of a tensor's dims: bounded by its element count.
  auto product = [&](const std::string& letters) {
    int64_t p = 1;
    for (char c : letters) p *= size[c];
    return p;
  };
  std::vector<int64_t> batch_dims;
  for (char c : batch) batch_dims.push_back(size[c]);
  auto with_batch = [&](std::vector<int64_t> tail) {
    std::vector<int64_t> s = batch_dims;
    s.insert(s.end(), tail.begin(), tail.end());
    return s;
  };
  ASSIGN_OR_RETURN(int32_t a3, ctx.Reshape(a.tensor, with_batch({product(free_a), product(contracted)})));
  ASSIGN_OR_RETURN(int32_t b3, ctx.Reshape(b.tensor, with_batch({product(contracted), product(free_b)})));
  ASSIGN_OR_RETURN(int32_t mm, ctx.Binary(TSR_OP_MATMUL, a3, b3));
  std::vector<int64_t> unflat = batch_dims;
  for (char c : free_a + free_b) unflat.push_back(size[c]);
  Term y{-1, batch + free_a + free_b};
  ASSIGN_OR_RETURN(y.tensor, ctx.Reshape(mm, unflat));
  RETURN_IF_ERROR(Permute(ctx, y, e.output));
  return std::vector<int32_t>{y.tensor};
}

}  // namespace

void RegisterEinsumConverters(ConverterTable& t) { t["Einsum"] = Einsum; }

}  // namespace tessera::onnx_import
