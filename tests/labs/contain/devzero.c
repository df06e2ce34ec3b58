/* Contained: the compiler reads /dev/zero forever unless its memory is limited. */
#include "/dev/zero"
