// The BuildStamp table of the model schema, to and from its in-memory form
// (graph/build_stamp.h). Used by the model writer and loader only.
#ifndef TESSERA_FRAMEWORK_CORE_MODEL_BUILD_STAMP_IO_H_
#define TESSERA_FRAMEWORK_CORE_MODEL_BUILD_STAMP_IO_H_

#include "flatbuffers/flatbuffers.h"
#include "framework/core/graph/build_stamp.h"
#include "framework/core/schema/tessera_model_generated.h"

namespace tessera {

flatbuffers::Offset<schema::BuildStamp> WriteBuildStamp(flatbuffers::FlatBufferBuilder& b, const BuildStamp& stamp);

// `table` has passed the flatbuffers Verifier; absent strings read as "".
BuildStamp ReadBuildStamp(const schema::BuildStamp& table);

}  // namespace tessera

#endif  // TESSERA_FRAMEWORK_CORE_MODEL_BUILD_STAMP_IO_H_
