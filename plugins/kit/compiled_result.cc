#include "plugins/kit/compiled_result.h"

#include <memory>

#include "plugins/kit/plugin_status.h"

struct tsr_compiled_s {
  uint32_t mode = 0;
  std::vector<uint8_t> bytecode;
  std::vector<std::string> entry_points;     // "" for a failed partition
  std::vector<std::vector<uint8_t>> jit_bodies;
  std::vector<tessera::kit::JitPayload> jit_payloads;
  std::vector<absl::Status> statuses;        // per partition
  std::vector<std::vector<uint32_t>> culprits;
  std::vector<std::vector<tsr_constant_reference>> constant_references;  // per partition
};

namespace tessera::kit {

absl::StatusOr<const JitPayload*> JitPayloadFromHandle(tsr_jit_handle handle, uint32_t magic, uint32_t format_version) {
  const auto* payload = reinterpret_cast<const JitPayload*>(handle);
  if (payload == nullptr) return absl::InvalidArgumentError("JIT handle is NULL");
  if (payload->magic != magic) return absl::InvalidArgumentError("JIT handle was made by another vendor's compiler");
  if (payload->format_version != format_version)
    return absl::FailedPreconditionError("JIT handle was made by a different version of this vendor's compiler");
  return payload;
}

namespace {
bool IsOneMode(uint32_t mode) { return mode == TSR_COMPILE_MODE_AOT || mode == TSR_COMPILE_MODE_JIT; }
}  // namespace

absl::StatusOr<uint32_t> CompileModeOf(const tsr_compile_options* options, const char* call) {
  if (!TSR_ABI_HAS_FIELD(options, tsr_compile_options, mode))
    return absl::InvalidArgumentError(std::string(call) + ": options missing or too old (no mode)");
  if (!IsOneMode(options->mode))
    return absl::InvalidArgumentError(std::string(call) + ": mode must be exactly one of AOT or JIT, not " +
                                      std::to_string(options->mode));
  return options->mode;
}

absl::StatusOr<tsr_compiled> MakeCompiledResult(uint32_t mode, const BytecodeIdentity& identity, uint32_t jit_magic,
                                                std::vector<PartitionCode> partitions) {
  if (!IsOneMode(mode)) return absl::InvalidArgumentError("compile: mode must be exactly one of AOT or JIT");
  auto c = std::make_unique<tsr_compiled_s>();
  c->mode = mode;
  std::vector<BytecodeEntry> entries;
  for (PartitionCode& p : partitions) {
    c->statuses.push_back(p.status);
    c->culprits.push_back(std::move(p.culprit_op_ids));
    c->constant_references.push_back(p.status.ok() ? std::move(p.constant_references)
                                                   : std::vector<tsr_constant_reference>{});
    if (!p.status.ok()) {
      c->entry_points.emplace_back();
      c->jit_bodies.emplace_back();
      c->jit_payloads.push_back({});
      continue;
    }
    c->entry_points.push_back(p.entry_point);
    if (mode == TSR_COMPILE_MODE_AOT) {
      entries.push_back({p.entry_point, std::move(p.body), p.input_count, p.output_count, std::move(p.body_writer)});
    } else {
      if (p.body_writer) {
        // A JIT payload is its own buffer: the body is written there, once.
        p.body.assign(p.body_writer->size, 0);
        if (!p.body_writer->write || !p.body_writer->write(p.body))
          return absl::InternalError("compile: a partition body wrote other than its declared size");
      }
      c->jit_bodies.push_back(std::move(p.body));
      c->jit_payloads.push_back({jit_magic, identity.vendor_format_version, nullptr, 0, p.input_count, p.output_count});
    }
  }
  // Bodies no longer move: point the payloads at them.
  for (size_t i = 0; i < c->jit_payloads.size(); ++i) {
    c->jit_payloads[i].body = c->jit_bodies[i].data();
    c->jit_payloads[i].body_size = c->jit_bodies[i].size();
  }
  if (mode == TSR_COMPILE_MODE_AOT) {
    absl::StatusOr<std::vector<uint8_t>> blob = BuildBytecode(identity, entries);
    if (!blob.ok()) return blob.status();
    c->bytecode = *std::move(blob);
  }
  return c.release();
}

tsr_status CompiledBytecode(tsr_compiled c, const void** data, size_t* size) {
  if (c == nullptr || data == nullptr || size == nullptr) return ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (c->mode != TSR_COMPILE_MODE_AOT) return ReportError(TSR_NOT_FOUND, "a JIT result has no bytecode");
  *data = c->bytecode.data();
  *size = c->bytecode.size();
  return TSR_OK;
}

tsr_status CompiledEntryPoint(tsr_compiled c, size_t i, const char** name) {
  if (c == nullptr || name == nullptr) return ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (i >= c->entry_points.size()) return ReportError(TSR_OUT_OF_RANGE, "partition index out of range");
  if (!c->statuses[i].ok()) return ReportError(TSR_NOT_FOUND, "partition failed to compile: no entry point");
  *name = c->entry_points[i].c_str();
  return TSR_OK;
}

tsr_status CompiledJitHandle(tsr_compiled c, size_t i, tsr_jit_handle* handle) {
  if (c == nullptr || handle == nullptr) return ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (c->mode != TSR_COMPILE_MODE_JIT) return ReportError(TSR_NOT_FOUND, "an AOT result has no JIT handles");
  if (i >= c->jit_payloads.size()) return ReportError(TSR_OUT_OF_RANGE, "partition index out of range");
  if (!c->statuses[i].ok()) return ReportError(TSR_NOT_FOUND, "partition failed to compile: no JIT handle");
  *handle = reinterpret_cast<tsr_jit_handle>(&c->jit_payloads[i]);
  return TSR_OK;
}

void ReleaseCompiled(tsr_compiled c) { delete c; }

tsr_status CompiledPartitionStatus(tsr_compiled c, size_t i, tsr_status* out_code, char* out_text,
                                   size_t text_capacity, size_t* out_text_length) {
  if (c == nullptr || out_code == nullptr) return ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (i >= c->statuses.size()) return ReportError(TSR_OUT_OF_RANGE, "partition index out of range");
  const std::string text(c->statuses[i].message());
  *out_code = ToTsrStatus(c->statuses[i].code());
  tsr_copy_text(text.c_str(), out_text, text_capacity, out_text_length);
  return TSR_OK;
}

tsr_status CompiledPartitionCulprits(tsr_compiled c, size_t i, const uint32_t** out_op_ids, size_t* out_count) {
  if (c == nullptr || out_op_ids == nullptr || out_count == nullptr)
    return ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (i >= c->culprits.size()) return ReportError(TSR_OUT_OF_RANGE, "partition index out of range");
  *out_op_ids = c->culprits[i].data();
  *out_count = c->culprits[i].size();
  return TSR_OK;
}

tsr_status CompiledConstantReferences(tsr_compiled c, size_t i, const tsr_constant_reference** out,
                                      size_t* out_count) {
  if (c == nullptr || out == nullptr || out_count == nullptr) return ReportError(TSR_INVALID_ARGUMENT, "NULL argument");
  if (i >= c->constant_references.size()) return ReportError(TSR_OUT_OF_RANGE, "partition index out of range");
  *out = c->constant_references[i].data();
  *out_count = c->constant_references[i].size();
  return TSR_OK;
}

}  // namespace tessera::kit
