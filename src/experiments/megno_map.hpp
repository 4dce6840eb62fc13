#pragma once
/// \file
/// A MEGNO map as chaos_maps.cpp draws it: a sweep file over a grid of two initial values (the
/// others derived from them, a non-finite derived value marking the forbidden region), run by the
/// sweep command's own function on every hardware thread, and its summary read back member by member.

#include <filesystem>
#include <string>
#include <vector>

namespace mechint::experiments {

/// What became of a member: a finished run, a start outside the energy surface (a derived value
/// that is not finite: `[derived] ... not a finite number`), or a run that failed (Newton, a
/// rejected step, a collision).
enum class MemberKind { kOk, kForbidden, kFailed };

struct MapMember {
  double u = 0.0, v = 0.0;  ///< the two varied values
  MemberKind kind = MemberKind::kOk;
  double megno = 0.0, lyapunov = 0.0;  ///< of a finished member only
  std::vector<double> extra;           ///< the columns asked for, in that order (0 where empty)
  std::string status;                  ///< a failed member's one line (`summary.csv`'s cell)
};

struct MegnoMap {
  std::vector<MapMember> members;  ///< in member order (the last varied name fastest)
  double wall_s = 0.0;             ///< the sweep's wall time
  double cpu_s = 0.0;              ///< the members' CPU time, summed
};

/// Writes `sweep_text` to `dir/<name>.toml` (so that `mechint sweep` reruns it), sweeps it into
/// `dir/<name>/` (emptied first: a map is computed afresh) on one thread per hardware thread, and
/// reads `summary.csv`. The sweep must vary `u_name` and `v_name` and record `megno`, `lyapunov`
/// and `cpu_s`, and the `extra` columns (numbers) too. Throws what the sweep throws, and IoError for
/// a summary it cannot read.
MegnoMap run_megno_map(const std::string& name, const std::string& sweep_text, const std::filesystem::path& dir,
                       const std::string& u_name, const std::string& v_name, const std::vector<std::string>& extra = {});

}  // namespace mechint::experiments
