#include "framework/core/graph/build_stamp.h"

namespace tessera {

const VendorBuildStamp* BuildStamp::Find(const std::string& vendor) const {
  for (const VendorBuildStamp& v : vendors)
    if (v.vendor == vendor) return &v;
  return nullptr;
}

}  // namespace tessera
