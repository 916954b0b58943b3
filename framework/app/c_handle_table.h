// The C API's handles (tessera_app.h) are checked: a handle is not the
// address of its object but an encoded (kind, slot, generation) triple in
// a table of its kind. Destroying frees the slot and bumps its generation,
// so a destroyed handle (used again, or destroyed twice) no longer matches
// and the call returns an error instead of reading freed memory; a handle
// of another kind, or a value never made by the library, is told apart
// too. Lookups hand out shared ownership: an object stays alive while any
// call (on any thread) is using it, and while other objects hold it (a run
// context holds its compiled model). Internal: never installed.
#ifndef TESSERA_FRAMEWORK_APP_C_HANDLE_TABLE_H_
#define TESSERA_FRAMEWORK_APP_C_HANDLE_TABLE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace tessera::app {

// Why a handle did not resolve.
enum class HandleProblem { kNone, kDestroyed, kOtherKind, kUnknown };

// The encoding: the low 4 bits name the kind (never 0, so no handle is
// NULL), the next kSlotBits the slot, the rest the slot's generation. A
// generation wraps after 2^32 destroys of one slot (2^8 where pointers are
// 32 bits): only then could a stale handle match again.
struct HandleBits {
  static constexpr unsigned kKindBits = 4;
  static constexpr uintptr_t kKindCount = 4;  // environment, model, compiled model, run context
  static constexpr unsigned kSlotBits = sizeof(uintptr_t) >= 8 ? 28 : 20;
  static constexpr unsigned kGenerationBits = sizeof(uintptr_t) * 8 - kKindBits - kSlotBits;
  static constexpr uintptr_t kKindMask = (uintptr_t{1} << kKindBits) - 1;
  static constexpr uintptr_t kSlotMask = (uintptr_t{1} << kSlotBits) - 1;
  static constexpr uintptr_t kGenerationMask =
      kGenerationBits >= 32 ? uintptr_t{0xffffffffu} : (uintptr_t{1} << kGenerationBits) - 1;
  static uintptr_t Encode(uintptr_t kind, uintptr_t slot, uintptr_t generation) {
    return kind | (slot << kKindBits) | (generation << (kKindBits + kSlotBits));
  }
  static uintptr_t Kind(uintptr_t h) { return h & kKindMask; }
  static uintptr_t Slot(uintptr_t h) { return (h >> kKindBits) & kSlotMask; }
  static uintptr_t Generation(uintptr_t h) { return h >> (kKindBits + kSlotBits); }
};

template <typename T>
class HandleTable {
 public:
  explicit HandleTable(uintptr_t kind) : kind_(kind) {}

  // A new handle for `object`; nullptr when the table is full (2^kSlotBits
  // live handles of one kind).
  void* Add(std::shared_ptr<T> object) {
    std::lock_guard<std::mutex> lock(lock_);
    uintptr_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      if (slots_.size() > HandleBits::kSlotMask) return nullptr;
      slot = slots_.size();
      slots_.emplace_back();
    }
    slots_[slot].object = std::move(object);
    return reinterpret_cast<void*>(HandleBits::Encode(kind_, slot, slots_[slot].generation));
  }

  // The live object of `handle`, shared; null with *problem set otherwise.
  std::shared_ptr<T> Get(const void* handle, HandleProblem* problem) const {
    std::lock_guard<std::mutex> lock(lock_);
    const Slot* s = Find(handle, problem);
    return s != nullptr ? s->object : nullptr;
  }

  // Takes `handle`'s object out of the table (the caller drops it outside
  // the lock: the last owner's destructor may wait for a run); the handle
  // is then stale. Null with *problem set when it was not live.
  std::shared_ptr<T> Remove(const void* handle, HandleProblem* problem) {
    std::lock_guard<std::mutex> lock(lock_);
    Slot* s = const_cast<Slot*>(Find(handle, problem));
    if (s == nullptr) return nullptr;
    std::shared_ptr<T> object = std::move(s->object);
    s->generation = (s->generation + 1) & HandleBits::kGenerationMask;
    if (s->generation == 0) s->generation = 1;
    free_.push_back(HandleBits::Slot(reinterpret_cast<uintptr_t>(handle)));
    return object;
  }

 private:
  struct Slot {
    std::shared_ptr<T> object;
    uintptr_t generation = 1;
  };
  const Slot* Find(const void* handle, HandleProblem* problem) const {
    const uintptr_t h = reinterpret_cast<uintptr_t>(handle);
    *problem = HandleProblem::kNone;
    if (HandleBits::Kind(h) != kind_) {
      *problem = HandleBits::Kind(h) >= 1 && HandleBits::Kind(h) <= HandleBits::kKindCount ? HandleProblem::kOtherKind
                                                                                           : HandleProblem::kUnknown;
      return nullptr;
    }
    const uintptr_t slot = HandleBits::Slot(h);
    if (slot >= slots_.size()) {
      *problem = HandleProblem::kUnknown;
      return nullptr;
    }
    const Slot& s = slots_[slot];
    if (s.object == nullptr || s.generation != HandleBits::Generation(h)) {
      *problem = HandleProblem::kDestroyed;
      return nullptr;
    }
    return &s;
  }
  const uintptr_t kind_;
  mutable std::mutex lock_;
  std::vector<Slot> slots_;
  std::vector<uintptr_t> free_;
};

}  // namespace tessera::app

#endif  // TESSERA_FRAMEWORK_APP_C_HANDLE_TABLE_H_
