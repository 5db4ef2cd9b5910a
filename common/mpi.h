/*
 * MPI start-up and shutdown, once per process, for the layers that run on
 * ranks (the executor's --workers mpi, the sweep under mpirun).
 *
 * The first mpi_rank() or mpi_size() initialises MPI, unless someone already
 * has, with MPI_Init_thread at MPI_THREAD_FUNNELED: the sweep runs worker
 * threads and only its main thread calls MPI; the executor calls MPI from
 * its main thread alone. mpi_end() finalises MPI if we initialised it; it
 * is also registered with atexit(), so an exit() on an error path still
 * finalises.
 *
 * Built without MPI (PIPEOPT_HAVE_MPI undefined), mpi_available() is false,
 * the rank is 0, the size 1, and mpi_end() does nothing.
 *
 * The names keep to the mpi_ prefix of this file; none of them is a name
 * the MPI libraries export (their C names are MPI_*, their Fortran ones
 * mpi_init, mpi_comm_rank, ...).
 */
#ifndef PIPEOPT_MPI_H
#define PIPEOPT_MPI_H

#include <stdbool.h>

/* Whether this pipeopt was built with MPI. */
bool mpi_available(void);

/* This process's rank in MPI_COMM_WORLD (initialising MPI if needed). */
int mpi_rank(void);

/* The number of ranks in MPI_COMM_WORLD (initialising MPI if needed). */
int mpi_size(void);

/* Finalise MPI if we initialised it and it is not finalised yet. */
void mpi_end(void);

#endif
