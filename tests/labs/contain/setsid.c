/* Contained: a double fork with setsid, the grandchild ignoring SIGTERM and sleeping. */
#include <signal.h>
#include <unistd.h>

void attention(const double *Q, const double *K, const double *V, const double *mask, int n,
               int m, int d_k, int d_v, double *out, double *weights)
{
    (void)Q, (void)K, (void)V, (void)mask, (void)n, (void)m, (void)d_k, (void)d_v;
    (void)out, (void)weights;
    if (fork() == 0) {
        setsid();
        if (fork() == 0) {
            signal(SIGTERM, SIG_IGN);
            setpgid(0, 0);
            sleep(600);
        }
        _exit(0);
    }
}
