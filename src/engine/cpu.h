/* cpu.h - which vector instructions this CPU has, asked once: the kernels of the forward pass
 * (tensor_matmul.c) and of the trainer (train_kernels.c) pick their path with these. 0 where
 * the question cannot be asked (not x86-64 with GCC). ATTEND_NO_AVX512=1 in the environment
 * hides AVX-512, so that the AVX2 paths can be tested and timed on a machine with both. */
#ifndef ATTEND_CPU_H
#define ATTEND_CPU_H

int cpu_has_avx512(void); /* AVX-512F, unless ATTEND_NO_AVX512 is set */
int cpu_has_avx2(void);
int cpu_has_avx2_fma(void);

#endif
