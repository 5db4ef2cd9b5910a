/* Loading the CUDA library (plugin.h). */
#include "common/plugin.h"

#ifdef PIPEOPT_CUDA_LIBRARY
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static void *handle;

bool cuda_library_built(void)
{
	return true;
}

void *cuda_library_symbol(const char *symbol, struct error *err)
{
	char exe[PATH_MAX], path[PATH_MAX + 64];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		slash[1] = 0;
	snprintf(path, sizeof path, "%s%s", slash ? exe : "", PIPEOPT_CUDA_LIBRARY);
	pthread_mutex_lock(&lock);
	if (!handle)
		handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	void *h = handle;
	pthread_mutex_unlock(&lock);
	if (!h) {
		const char *why = dlerror();
		err_set(err, "cannot load the CUDA library '%s': %s", path, why ? why : "?");
		return NULL;
	}
	void *fn = dlsym(h, symbol);
	if (!fn)
		err_set(err, "the CUDA library '%s' has no %s", path, symbol);
	return fn;
}
#else
bool cuda_library_built(void)
{
	return false;
}

void *cuda_library_symbol(const char *symbol, struct error *err)
{
	(void)symbol;
	err_set(err, "this pipeopt was built without CUDA (nvcc was not found at build time)");
	return NULL;
}
#endif
