/* Several threads: two parked in the kernel (condition variable, sleep),
   one crashing while main waits in pthread_join. */
#include <pthread.h>
#include <unistd.h>
#include "crash.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t ready;

__attribute__((noinline)) static void *waiter(void *arg) {
	pthread_barrier_wait(&ready);
	pthread_mutex_lock(&mu);
	for (;;) pthread_cond_wait(&cv, &mu);
	return arg;
}

__attribute__((noinline)) static void *sleeper(void *arg) {
	pthread_barrier_wait(&ready);
	for (;;) sleep(100);
	return arg;
}

__attribute__((noinline)) static int worker_crash(int *p, int n) {
	*p = n; /* SIGSEGV */
	return n;
}

__attribute__((noinline)) static void *crasher(void *arg) {
	pthread_barrier_wait(&ready);
	usleep(200 * 1000); /* let the others park */
	worker_crash(crash_ptr, (int)(long)arg);
	return arg;
}

__attribute__((noinline)) int case_threads(int n) {
	pthread_t t[3];
	pthread_barrier_init(&ready, 0, 3);
	pthread_create(&t[0], 0, waiter, 0);
	pthread_create(&t[1], 0, sleeper, 0);
	pthread_create(&t[2], 0, crasher, (void *)(long)n);
	pthread_join(t[2], 0);
	return 0;
}
