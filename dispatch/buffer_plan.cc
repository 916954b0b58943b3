// LoadedModel's buffer plan: for every tensor edge (producer -> consumers,
// the app at either end of graph inputs and outputs), which storage holds
// it in which (type, layout), and which conversions run before which step
// (layout_negotiation.h decides; this file builds the storages and the
// records the reports show).
#include <algorithm>
#include <map>
#include <optional>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "framework/core/base/dtype.h"
#include "framework/core/base/status_macros.h"
#include "dispatch/layout_conversion.h"
#include "dispatch/layout_negotiation.h"
#include "dispatch/loaded_model.h"
#include "framework/loader/plugin_library.h"

namespace tessera {

// Vendor types are numbered per library (common.h's namespace rule), so
// only the library that allocates one can name it.
std::string LoadedModel::TypeName(int32_t type, int32_t session) const {
  if (type < TSR_BUFFER_TYPE_VENDOR_BASE || session < 0) return BufferTypeName(type);
  const DeviceSession& s = *sessions_[session];
  const tsr_dispatch_api* api = s.api();
  size_t count = 0;
  if (!TSR_ABI_HAS(api, tsr_dispatch_api, get_buffer_type_info) || api->buffer_type_count == nullptr ||
      api->buffer_type_count(s.context(), &count) != TSR_OK)
    return BufferTypeName(type);
  for (size_t i = 0; i < count; ++i) {
    tsr_buffer_type_info info{};
    info.header = HostFilledHeader(sizeof(info), s.library().version);
    if (api->get_buffer_type_info(s.context(), i, &info) == TSR_OK && info.type == type && info.name != nullptr)
      return info.name;
  }
  return BufferTypeName(type);
}

absl::StatusOr<int32_t> LoadedModel::AddStorage(int32_t tensor, const BufferLayout& layout, int32_t allocating_session,
                                                uint64_t size, uint32_t alignment) {
  if (layout.type != TSR_BUFFER_TYPE_HOST && allocating_session < 0)
    return absl::FailedPreconditionError(absl::StrCat("no library can allocate buffer type ", BufferTypeName(layout.type)));
  storages_.push_back({tensor, layout.type, layout.type == TSR_BUFFER_TYPE_HOST ? -1 : allocating_session, size,
                       alignment, layout});
  return static_cast<int32_t>(storages_.size() - 1);
}

absl::Status LoadedModel::PlanBuffers() {
  const int32_t tensor_count = static_cast<int32_t>(graph_.tensors.size());
  primary_storage_.assign(tensor_count, -1);
  output_conversions_.assign(graph_.outputs.size(), -1);
  // Endpoints of every tensor: producer (step, index) or the app; consumers.
  // The app's index is the graph output's position.
  struct Endpoint { int32_t step; size_t index; };  // step -1 = the app
  std::vector<std::optional<Endpoint>> producer(tensor_count);
  std::vector<std::vector<Endpoint>> consumers(tensor_count);
  for (int32_t t : graph_.inputs) producer[t] = Endpoint{-1, 0};
  for (size_t s = 0; s < steps_.size(); ++s) {
    const Op& op = graph_.ops[steps_[s].op];
    for (size_t i = 0; i < op.inputs.size(); ++i) consumers[op.inputs[i]].push_back({static_cast<int32_t>(s), i});
    for (size_t i = 0; i < op.outputs.size(); ++i) producer[op.outputs[i]] = Endpoint{static_cast<int32_t>(s), i};
  }
  for (size_t k = 0; k < graph_.outputs.size(); ++k) consumers[graph_.outputs[k]].push_back({-1, k});
  // Every endpoint's alignment applies to all the tensor's buffers: a
  // shared buffer is imported by address into each library reading it.
  std::vector<uint32_t> alignment(tensor_count, 0);
  for (size_t s = 0; s < steps_.size(); ++s) {
    const Op& op = graph_.ops[steps_[s].op];
    for (int io = 0; io < 2; ++io) {
      const std::vector<int32_t>& tensors = io == 0 ? op.inputs : op.outputs;
      const auto& aligns = io == 0 ? steps_[s].input_alignments : steps_[s].output_alignments;
      const auto& layouts = io == 0 ? steps_[s].input_layouts : steps_[s].output_layouts;
      for (size_t i = 0; i < tensors.size(); ++i) {
        alignment[tensors[i]] = std::max(alignment[tensors[i]], aligns[i]);
        for (const BufferLayout& l : layouts[i]) alignment[tensors[i]] = std::max(alignment[tensors[i]], l.alignment);
      }
    }
  }
  for (size_t s = 0; s < steps_.size(); ++s) {
    steps_[s].input_storage.assign(graph_.ops[steps_[s].op].inputs.size(), -1);
    steps_[s].output_storage.assign(graph_.ops[steps_[s].op].outputs.size(), -1);
  }
  auto owner = [&](const Endpoint& e) { return e.step < 0 ? -1 : steps_[e.step].session; };
  auto converts_own = [&](int32_t session) {
    return session >= 0 && TSR_ABI_HAS(sessions_[session]->api(), tsr_dispatch_api, convert_buffer);
  };
  auto endpoint = [&](const Endpoint& e, bool input) {
    if (e.step < 0) return LayoutEndpoint{{DenseHostLayout()}, -1, false, "the app"};
    const LoadedStep& step = steps_[e.step];
    return LayoutEndpoint{input ? step.input_layouts[e.index] : step.output_layouts[e.index], step.session,
                          converts_own(step.session),
                          absl::StrCat("op id ", graph_.ops[step.op].id, " (", sessions_[step.session]->library().vendor,
                                       ") ", input ? "input " : "output ", e.index)};
  };
  for (int32_t t = 0; t < tensor_count; ++t) {
    if (!producer[t] || graph_.tensors[t].is_constant) continue;
    const Tensor& tensor = graph_.tensors[t];
    const size_t element = DTypeSize(tensor.dtype);
    const Endpoint p = *producer[t];
    const LayoutEndpoint produced = endpoint(p, false);
    std::vector<LayoutEndpoint> reading;
    for (const Endpoint& c : consumers[t]) reading.push_back(endpoint(c, true));
    absl::StatusOr<LayoutDecision> decided = NegotiateLayouts(produced, reading);
    if (!decided.ok())
      return absl::FailedPreconditionError(absl::StrCat("tensor '", tensor.name, "': ", decided.status().message()));
    const LayoutDecision& d = *decided;
    // A storage holds every byte each endpoint using it asks for.
    auto size_of = [&](const BufferLayout& l) { return LayoutExtent(l, tensor.shape, element); };
    uint64_t primary_size = std::max<uint64_t>(tensor.byte_size(), size_of(d.primary));
    for (size_t i = 0; i < consumers[t].size(); ++i)
      if (d.reads_primary[i]) primary_size = std::max(primary_size, size_of(d.consumer[i]));
    // Who allocates a non-host type: the producer, else the first consumer reading it.
    int32_t primary_allocator = owner(p);
    for (size_t i = 0; i < consumers[t].size() && primary_allocator < 0; ++i)
      if (d.reads_primary[i]) primary_allocator = owner(consumers[t][i]);
    ASSIGN_OR_RETURN(const int32_t primary, AddStorage(t, d.primary, primary_allocator, primary_size, alignment[t]));
    primary_storage_[t] = primary;
    if (p.step >= 0) steps_[p.step].output_storage[p.index] = primary;
    const StorageSpec primary_spec = storages_[primary];
    // (type, owner or -1 if shared, layout) -> storage: consumers that read
    // the same converted copy share it.
    std::map<std::tuple<int32_t, int32_t, std::string>, int32_t> converted;
    for (size_t i = 0; i < consumers[t].size(); ++i) {
      const Endpoint& c = consumers[t][i];
      int32_t storage = primary;
      if (!d.reads_primary[i]) {
        const BufferLayout& to = d.consumer[i];
        const std::string to_layout = LayoutName(to, tensor.shape, element);
        int32_t to_owner = -1;
        bool fresh = true;  // a copy another consumer made already is not made again
        if (c.step >= 0) {
          const std::tuple<int32_t, int32_t, std::string> key{to.type, tsr_buffer_type_is_shared(to.type) ? -1 : owner(c),
                                                              to_layout};
          auto it = converted.find(key);
          fresh = it == converted.end();
          if (fresh) {
            const uint64_t size = std::max<uint64_t>(tensor.byte_size(), size_of(to));
            ASSIGN_OR_RETURN(int32_t extra, AddStorage(t, to, owner(c), size, alignment[t]));
            it = converted.emplace(key, extra).first;
          }
          storage = it->second;
          to_owner = storages_[storage].allocating_session;
        }
        if (!fresh) {
          steps_[c.step].input_storage[c.index] = storage;
          continue;
        }
        // The app reads dense host bytes straight out of the primary storage.
        ConversionRecord r{t, tensor.name, d.primary.type, to.type, tensor.byte_size(),
                           c.step < 0 ? "app" : sessions_[steps_[c.step].session]->library().vendor, 0,
                           TypeName(d.primary.type, primary_spec.allocating_session), TypeName(to.type, to_owner)};
        const bool same_memory =
            SameBufferType(d.primary.type, primary_spec.allocating_session, to.type, to_owner);
        r.kind = ConversionKind(same_memory, SameLayout(d.primary, to));
        r.from_layout = LayoutName(d.primary, tensor.shape, element);
        r.to_layout = to_layout;
        // The library converts between its own buffers where it can (a DMA,
        // or the only reader of a VENDOR layout); the host otherwise.
        const bool own = c.step >= 0 && primary_spec.allocating_session >= 0 &&
                         primary_spec.allocating_session == to_owner && converts_own(to_owner);
        r.via = own ? "convert_buffer" : "host";
        conversions_.push_back(std::move(r));
        if (c.step >= 0) {
          steps_[c.step].conversions_before.push_back({primary, storage, conversions_.size() - 1});
        } else {
          output_conversions_[c.index] = static_cast<int32_t>(conversions_.size() - 1);
        }
      }
      if (c.step >= 0) steps_[c.step].input_storage[c.index] = storage;
    }
  }
  for (const LoadedStep& step : steps_)
    for (size_t i = 0; i < step.input_storage.size(); ++i)
      if (step.input_storage[i] < 0)
        return absl::FailedPreconditionError(absl::StrCat("op id ", graph_.ops[step.op].id, ": input ", i, " has no producer"));
  return absl::OkStatus();
}

}  // namespace tessera
