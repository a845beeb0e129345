/* A stand-in for Windows' bcryptprimitives.dll, for running Windows builds
 * under Wine 8.0 (Debian 12), which lacks it. Rust's standard library
 * imports one function from it, ProcessPrng (Windows 10 and later: fill a
 * buffer with random bytes; always succeeds). This one forwards to
 * advapi32's SystemFunction036 (RtlGenRandom), which Wine has.
 * Built by scripts/cross/wine-runner; never shipped. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
