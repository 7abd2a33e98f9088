#include <fftw3.h>
