// The failure class of every status the ABI defines, with and without an
// overrun: a combined failure (device lost and overran) is a lost device,
// since no later attempt on that device can succeed; an overrun outranks
// every other status, OK and DATA_LOSS included. The expected classes are
// written out by hand from the rules in docs/resilience.md, not computed.
#include "dispatch/resilience_policy.h"

#include <string>

#include "gtest/gtest.h"

namespace tessera {
namespace {

struct Row {
  tsr_status code;
  FailureClass alone;    // not overran
  FailureClass overran;  // the same status, and the run overran its deadline
};

constexpr FailureClass kT = FailureClass::kTransient, kL = FailureClass::kDeviceLost, kD = FailureClass::kDeadline,
                       kC = FailureClass::kCorrupt, kP = FailureClass::kPermanent;

// Every tsr_status of api/tessera/common.h. OK alone is not a failure,
// but ClassifyFailure is only called on failures; OK alone is left out.
constexpr Row kRows[] = {
    {TSR_CANCELLED, kP, kD},
    {TSR_UNKNOWN, kP, kD},
    {TSR_INVALID_ARGUMENT, kP, kD},
    {TSR_DEADLINE_EXCEEDED, kD, kD},
    {TSR_NOT_FOUND, kP, kD},
    {TSR_ALREADY_EXISTS, kP, kD},
    {TSR_PERMISSION_DENIED, kP, kD},
    {TSR_RESOURCE_EXHAUSTED, kT, kD},
    {TSR_FAILED_PRECONDITION, kP, kD},
    {TSR_ABORTED, kT, kD},
    {TSR_OUT_OF_RANGE, kP, kD},
    {TSR_UNIMPLEMENTED, kP, kD},
    {TSR_INTERNAL, kP, kD},
    {TSR_UNAVAILABLE, kT, kD},
    {TSR_DATA_LOSS, kC, kD},
    {TSR_UNAUTHENTICATED, kP, kD},
    {TSR_VERSION_UNSUPPORTED, kP, kD},
    {TSR_BYTECODE_INVALID, kP, kD},
    {TSR_BYTECODE_INCOMPATIBLE, kP, kD},
    {TSR_BYTECODE_CHECKSUM, kP, kD},
    {TSR_DEVICE_LOST, kL, kL},
};

TEST(ClassifyFailure, EveryStatusAloneAndWithAnOverrun) {
  for (const Row& r : kRows) {
    EXPECT_EQ(FailureClassName(ClassifyFailure(r.code, false)), std::string(FailureClassName(r.alone)))
        << "status " << r.code;
    EXPECT_EQ(FailureClassName(ClassifyFailure(r.code, true)), std::string(FailureClassName(r.overran)))
        << "status " << r.code << " that overran";
  }
}

TEST(ClassifyFailure, ADeviceLostThatOverranIsADeviceLoss) {
  EXPECT_EQ(ClassifyFailure(TSR_DEVICE_LOST, true), FailureClass::kDeviceLost);
  EXPECT_FALSE(IsRetryable(ClassifyFailure(TSR_DEVICE_LOST, true)));
}

TEST(ClassifyFailure, AnOverrunThatSaysOkOrDataLossIsADeadline) {
  EXPECT_EQ(ClassifyFailure(TSR_OK, true), FailureClass::kDeadline);
  EXPECT_EQ(ClassifyFailure(TSR_DATA_LOSS, true), FailureClass::kDeadline);
}

TEST(ClassifyFailure, OnlyTransientAndDeadlineAreRetried) {
  EXPECT_TRUE(IsRetryable(kT));
  EXPECT_TRUE(IsRetryable(kD));
  EXPECT_FALSE(IsRetryable(kL));
  EXPECT_FALSE(IsRetryable(kC));
  EXPECT_FALSE(IsRetryable(kP));
}

}  // namespace
}  // namespace tessera
