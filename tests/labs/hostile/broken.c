/* Hostile C: does not compile. */
void attention(const double *Q) { return Q + ; }
