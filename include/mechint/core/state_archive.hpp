#pragma once
/// \file
/// The complete state of a stepper as bytes, for checkpoints (docs/trustworthy-runs.md, "Checkpoint
/// and resume").
///
/// A stepper that can be checkpointed has one member template
///
///     template <class Archive> void checkpoint_state(Archive& a) { a(q_); a(p_); a(t_); ... }
///
/// that names every member its future depends on (its memory: the previous point, a kept Newton
/// factorization, a compensated sum, the step-size controller), once, for both directions:
/// `StateWriter` appends each value's bytes, `StateReader` reads them back in the same order. Values
/// are copied bit for bit, so a stepper restored from its bytes continues exactly as the original
/// would have: a run interrupted and resumed writes the same output, to the last bit.
///
/// The bytes belong to one build of one stepper type with one configuration; the application that
/// stores them (app/checkpoint.hpp) records what they belong to and refuses any other use.

#include <array>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "mechint/core/errors.hpp"

namespace mechint {

/// Appends the bytes of each value it is given (see the file comment).
class StateWriter {
 public:
  template <class T>
    requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void operator()(const T& value) {
    raw(&value, sizeof value);
  }
  /// An Eigen matrix or vector: its coefficients in storage order. A runtime-sized one is read back
  /// into an object of the same size (its size is configuration: the model's dimension).
  template <class Derived>
  void operator()(const Eigen::PlainObjectBase<Derived>& m) {
    raw(m.data(), sizeof(typename Derived::Scalar) * static_cast<std::size_t>(m.size()));
  }
  template <class T, std::size_t N>
  void operator()(const std::array<T, N>& values) {
    for (const T& v : values) (*this)(v);
  }
  /// A vector of values: its length, then each value.
  template <class T>
  void operator()(const std::vector<T>& values) {
    (*this)(values, [this](const T& v) { (*this)(v); });
  }
  /// A vector of structures: its length, then `each(element)` for every element.
  template <class T, class Each>
  void operator()(const std::vector<T>& values, Each&& each) {
    (*this)(static_cast<std::size_t>(values.size()));
    for (const T& v : values) each(v);
  }

  const std::string& bytes() const { return bytes_; }

 private:
  void raw(const void* p, std::size_t n) { bytes_.append(static_cast<const char*>(p), n); }
  std::string bytes_;
};

/// Reads back, in the same order, what a StateWriter wrote; throws InvalidInput when the bytes end
/// too early, and `finish()` when they go on longer (bytes of another stepper or configuration).
class StateReader {
 public:
  /// Keeps its own copy of the bytes (read once per resume), so a temporary may be passed.
  explicit StateReader(std::string bytes) : bytes_(std::move(bytes)) {}

  template <class T>
    requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void operator()(T& value) {
    raw(&value, sizeof value);
  }
  /// Into an object of the size written (runtime-sized objects are sized by their owner first).
  template <class Derived>
  void operator()(Eigen::PlainObjectBase<Derived>& m) {
    raw(m.data(), sizeof(typename Derived::Scalar) * static_cast<std::size_t>(m.size()));
  }
  template <class T, std::size_t N>
  void operator()(std::array<T, N>& values) {
    for (T& v : values) (*this)(v);
  }
  template <class T>
  void operator()(std::vector<T>& values) {
    (*this)(values, [this](T& v) { (*this)(v); });
  }
  template <class T, class Each>
  void operator()(std::vector<T>& values, Each&& each) {
    std::size_t size = 0;
    (*this)(size);
    if (size > bytes_.size() - offset_) throw InvalidInput(kMismatch);  // each element takes a byte at least
    values.resize(size);
    for (T& v : values) each(v);
  }

  /// Throws InvalidInput unless every byte was read.
  void finish() const {
    if (offset_ != bytes_.size()) throw InvalidInput(kMismatch);
  }

 private:
  static constexpr const char* kMismatch =
      "the checkpoint's state does not fit this run's integrator (another method, system or build)";
  void raw(void* p, std::size_t n) {
    if (n > bytes_.size() - offset_) throw InvalidInput(kMismatch);
    std::memcpy(p, bytes_.data() + offset_, n);
    offset_ += n;
  }
  std::string bytes_;
  std::size_t offset_ = 0;
};

/// A stepper whose complete state can be written to and read from bytes (see the file comment).
template <class S>
concept Checkpointable = requires(S& s, StateWriter& w, StateReader& r) {
  s.checkpoint_state(w);
  s.checkpoint_state(r);
};

}  // namespace mechint
