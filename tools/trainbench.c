/* trainbench.c - `attend train` without the terminal UI linked in: the training benchmark
 * (bench/train_bench.sh) and a way to train when only the core builds. Same options. */
#include "cmd.h"

int main(int argc, char **argv)
{
    return cmd_train(argc - 1, argv + 1);
}
