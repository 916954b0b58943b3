// A flatbuffers string field as std::string; an absent field reads as "".
#pragma once

#include <string>

#include "flatbuffers/flatbuffers.h"

namespace tessera {

inline std::string FlatString(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

}  // namespace tessera
