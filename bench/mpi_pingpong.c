/* Message latency and bandwidth between ranks 0 and 1, for bench/mpi_scaling.py's model: the round trip of an
 * empty message and of one of BYTES bytes, averaged over ROUNDS. Prints "latency_s bandwidth_bytes_per_s". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static double round_trip(char* buffer, int bytes, int rounds, int rank) {
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (int i = 0; i < rounds; ++i) {
    if (rank == 0) {
      MPI_Send(buffer, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buffer, bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buffer, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buffer, bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  return (MPI_Wtime() - start) / rounds;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int bytes = 1 << 20, rounds = 200;
  char* buffer = calloc(bytes, 1);
  round_trip(buffer, 0, 20, rank);
  const double empty = round_trip(buffer, 0, rounds, rank);
  const double full = round_trip(buffer, bytes, 20, rank);
  if (rank == 0) printf("%.9g %.9g\n", empty / 2, bytes / ((full - empty) / 2));
  free(buffer);
  MPI_Finalize();
  return 0;
}
