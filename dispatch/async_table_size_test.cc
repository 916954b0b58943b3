// The optional async table of the dispatch ABI (1.2) and its struct_size:
// a table one member short, or with any member NULL, is used as none; an
// exact table and a longer one (a newer library's) are used. The dispatch
// table itself must be long enough to hold the `async` pointer.
#include <cstddef>

#include "dispatch/step_schedule.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

tsr_status CreateTimeline(tsr_device_context, uint64_t, tsr_timeline*) { return TSR_OK; }
void DestroyTimeline(tsr_timeline) {}
tsr_status InvokeAsync(tsr_invocation, const tsr_timeline_point*, size_t, tsr_timeline_point) { return TSR_OK; }
tsr_status Wait(tsr_timeline_point, uint64_t) { return TSR_OK; }
tsr_status Query(tsr_timeline, uint64_t*, tsr_status*, char*, size_t, size_t*) { return TSR_OK; }
tsr_status Signal(tsr_timeline_point) { return TSR_OK; }

// A newer library's async table: the v1.2 members and one more.
struct LongerAsyncTable {
  tsr_dispatch_async_api v1_2;
  void (*later_member)(void);
};

struct Tables {
  LongerAsyncTable async{};
  tsr_dispatch_api dispatch{};
  Tables() {
    tsr_dispatch_async_api& a = async.v1_2;
    a.header.struct_size = sizeof(tsr_dispatch_async_api);
    a.create_timeline = CreateTimeline;
    a.destroy_timeline = DestroyTimeline;
    a.invoke_async = InvokeAsync;
    a.wait = Wait;
    a.query = Query;
    a.signal = Signal;
    dispatch.header.struct_size = sizeof(tsr_dispatch_api);
    dispatch.async = &async.v1_2;
  }
};

TEST(AsyncTableSize, AnExactTableIsUsed) {
  Tables t;
  EXPECT_EQ(UsableAsyncApi(&t.dispatch), &t.async.v1_2);
}

TEST(AsyncTableSize, ALongerTableIsUsed) {
  Tables t;
  t.async.v1_2.header.struct_size = sizeof(LongerAsyncTable);
  EXPECT_EQ(UsableAsyncApi(&t.dispatch), &t.async.v1_2);
}

TEST(AsyncTableSize, ATableOneMemberShortIsUsedAsNone) {
  Tables t;
  // Without `signal`, its last member: the bytes of a table that ends there.
  t.async.v1_2.header.struct_size = static_cast<uint32_t>(offsetof(tsr_dispatch_async_api, signal));
  EXPECT_EQ(UsableAsyncApi(&t.dispatch), nullptr);
  // One byte short of the whole table.
  t.async.v1_2.header.struct_size = sizeof(tsr_dispatch_async_api) - 1;
  EXPECT_EQ(UsableAsyncApi(&t.dispatch), nullptr);
  t.async.v1_2.header.struct_size = 0;
  EXPECT_EQ(UsableAsyncApi(&t.dispatch), nullptr);
}

TEST(AsyncTableSize, AnyNullMemberMakesItNone) {
  for (int member = 0; member < 6; ++member) {
    Tables t;
    tsr_dispatch_async_api& a = t.async.v1_2;
    switch (member) {
      case 0:
        a.create_timeline = nullptr;
        break;
      case 1:
        a.destroy_timeline = nullptr;
        break;
      case 2:
        a.invoke_async = nullptr;
        break;
      case 3:
        a.wait = nullptr;
        break;
      case 4:
        a.query = nullptr;
        break;
      default:
        a.signal = nullptr;
        break;
    }
    EXPECT_EQ(UsableAsyncApi(&t.dispatch), nullptr) << "member " << member;
  }
}

TEST(AsyncTableSize, ADispatchTableThatEndsBeforeAsyncHasNone) {
  Tables t;
  t.dispatch.header.struct_size = static_cast<uint32_t>(offsetof(tsr_dispatch_api, async));
  EXPECT_EQ(UsableAsyncApi(&t.dispatch), nullptr);
  t.dispatch.header.struct_size = static_cast<uint32_t>(offsetof(tsr_dispatch_api, async) + sizeof(void*));
  EXPECT_EQ(UsableAsyncApi(&t.dispatch), &t.async.v1_2);
  t.dispatch.async = nullptr;
  EXPECT_EQ(UsableAsyncApi(&t.dispatch), nullptr);
  EXPECT_EQ(UsableAsyncApi(nullptr), nullptr);
}

}  // namespace
}  // namespace tessera
