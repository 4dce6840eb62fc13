#include "cli/mpi_ranks.hpp"

#include <algorithm>
#include <cstdlib>
#include <thread>
#include <string>

#include "mechint/core/errors.hpp"

#ifdef MECHINT_WITH_MPI
#include <mpi.h>
#endif

namespace mechint::cli {
namespace {

bool launched_by_mpi() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

#ifdef MECHINT_WITH_MPI
constexpr int kRowTag = 1;

class MpiRanks final : public app::SweepRanks {
 public:
  MpiRanks() {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    // The ranks that share this machine's memory, i.e. its cores.
    MPI_Comm local;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &local);
    MPI_Comm_size(local, &local_size_);
    MPI_Comm_free(&local);
  }
  ~MpiRanks() override { MPI_Finalize(); }

  int rank() const override { return rank_; }
  int local_size() const { return local_size_; }
  int size() const override { return size_; }

  bool on_every_rank(bool mine) override {
    int all = mine ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
  }

  std::string broadcast(const std::string& text) override {
    unsigned long length = rank_ == 0 ? text.size() : 0;
    MPI_Bcast(&length, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
    std::string result = rank_ == 0 ? text : std::string(length, '\0');
    MPI_Bcast(result.data(), static_cast<int>(length), MPI_CHAR, 0, MPI_COMM_WORLD);
    return result;
  }

  void send_row(const std::string& row) override {
    MPI_Send(row.data(), static_cast<int>(row.size()), MPI_CHAR, 0, kRowTag, MPI_COMM_WORLD);
  }

  [[noreturn]] void abort(int code) override {
    MPI_Abort(MPI_COMM_WORLD, code);
    std::_Exit(code);
  }

  std::optional<std::string> receive_row() override {
    int arrived = 0;
    MPI_Status status;
    MPI_Iprobe(MPI_ANY_SOURCE, kRowTag, MPI_COMM_WORLD, &arrived, &status);
    if (!arrived) return std::nullopt;
    int length = 0;
    MPI_Get_count(&status, MPI_CHAR, &length);
    std::string row(static_cast<std::size_t>(length), '\0');
    MPI_Recv(row.data(), length, MPI_CHAR, status.MPI_SOURCE, kRowTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return row;
  }

 private:
  int rank_ = 0, size_ = 1, local_size_ = 1;
};
#endif

}  // namespace

std::unique_ptr<app::SweepRanks> mpi_ranks_if_launched() {
  if (!launched_by_mpi()) return nullptr;
#ifdef MECHINT_WITH_MPI
  auto ranks = std::make_unique<MpiRanks>();
  if (ranks->size() < 2) return nullptr;  // one process: the plain sweep (MPI ends with the object)
  return ranks;
#else
  throw InvalidInput("this mechint was built without MPI (MECHINT_WITH_MPI=OFF): run the sweep without mpirun");
#endif
}

unsigned default_threads([[maybe_unused]] const app::SweepRanks& ranks) {
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
#ifdef MECHINT_WITH_MPI
  if (const auto* mpi = dynamic_cast<const MpiRanks*>(&ranks))
    return std::max(1u, hardware / static_cast<unsigned>(std::max(1, mpi->local_size())));
#endif
  return hardware;
}

}  // namespace mechint::cli
