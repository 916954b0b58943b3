// ExecutionContext's conversions: the plan's (LoadedStep::conversions_before),
// and the app's dense host bytes in and out of storages that may hold
// another layout (graph inputs and outputs, a step's cpu plan).
#include <cstring>

#include "absl/strings/str_cat.h"
#include "dispatch/execution_context.h"
#include "dispatch/layout_conversion.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"

namespace tessera {

absl::Status ExecutionContext::Convert(const LoadedStep::Conversion& c) {
  const StorageSpec& from = model_->storages()[c.from];
  const StorageSpec& to = model_->storages()[c.to];
  const Tensor& tensor = model_->graph().tensors[from.tensor];
  const size_t element = DTypeSize(tensor.dtype);
  if (model_->conversions()[c.record].via == "convert_buffer") {
    // Both buffers are one library's (the plan checked it has the hook).
    const DeviceSession& s = Session(from.allocating_session);
    const tsr_buffer_layout a = ToAbiLayout(from.layout, tensor.shape, element, s.library().version);
    const tsr_buffer_layout b = ToAbiLayout(to.layout, tensor.shape, element, s.library().version);
    std::lock_guard<std::mutex> lock(model_->SessionLock(from.allocating_session));
    return s.Check(
        s.api()->convert_buffer(s.context(), storages_[c.from].owner_buffer, &a, storages_[c.to].owner_buffer, &b),
        absl::StrCat("convert_buffer of '", tensor.name, "'"));
  }
  ASSIGN_OR_RETURN(uint8_t * src, Map(c.from));
  absl::StatusOr<uint8_t*> dst = Map(c.to);
  absl::Status moved = dst.status();
  if (dst.ok()) moved = Relayout({src, from.size}, from.layout, {*dst, to.size}, to.layout, tensor.shape, element);
  absl::Status a = Unmap(c.from);
  if (dst.ok()) RETURN_IF_ERROR(Unmap(c.to));
  RETURN_IF_ERROR(moved);
  return a;
}

absl::Status ExecutionContext::WriteDense(int32_t storage, std::span<const uint8_t> bytes) {
  const StorageSpec& spec = model_->storages()[storage];
  const Tensor& tensor = model_->graph().tensors[spec.tensor];
  ASSIGN_OR_RETURN(uint8_t * dst, Map(storage));
  absl::Status moved = absl::OkStatus();
  if (spec.layout.layout == TSR_LAYOUT_DENSE) {
    if (!bytes.empty()) std::memcpy(dst, bytes.data(), bytes.size());
  } else {
    moved = Relayout(bytes, DenseHostLayout(), {dst, spec.size}, spec.layout, tensor.shape, DTypeSize(tensor.dtype));
  }
  RETURN_IF_ERROR(Unmap(storage));
  return moved;
}

absl::Status ExecutionContext::ReadDense(int32_t storage, std::span<uint8_t> bytes) {
  const StorageSpec& spec = model_->storages()[storage];
  const Tensor& tensor = model_->graph().tensors[spec.tensor];
  ASSIGN_OR_RETURN(uint8_t * src, Map(storage));
  absl::Status moved = absl::OkStatus();
  if (spec.layout.layout == TSR_LAYOUT_DENSE) {
    if (!bytes.empty()) std::memcpy(bytes.data(), src, bytes.size());
  } else {
    moved = Relayout({src, spec.size}, spec.layout, bytes, DenseHostLayout(), tensor.shape, DTypeSize(tensor.dtype));
  }
  RETURN_IF_ERROR(Unmap(storage));
  return moved;
}

}  // namespace tessera
