#include "common/mpi.h"

#ifdef PIPEOPT_HAVE_MPI
#include <mpi.h>
#include <stdlib.h>

static bool we_initialised;

static void start(void)
{
	int inited = 0, provided;
	MPI_Initialized(&inited);
	if (inited)
		return;
	MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
	we_initialised = true;
	atexit(mpi_end);
}

bool mpi_available(void)
{
	return true;
}

int mpi_rank(void)
{
	int rank = 0;
	start();
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	return rank;
}

int mpi_size(void)
{
	int size = 1;
	start();
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	return size;
}

void mpi_end(void)
{
	int done = 0;
	if (!we_initialised)
		return;
	MPI_Finalized(&done);
	if (!done)
		MPI_Finalize();
}

#else

bool mpi_available(void)
{
	return false;
}

int mpi_rank(void)
{
	return 0;
}

int mpi_size(void)
{
	return 1;
}

void mpi_end(void)
{
}

#endif
