/*
 * bcryptprimitives.dll for Wine 8: ProcessPrng only.
 *
 * The Go runtime (1.24 and later) fills its random state with ProcessPrng
 * from bcryptprimitives.dll, which Windows 10 and later have and Wine 8 (the
 * version in Debian 12) lacks: without this DLL every Go Windows program
 * stops at start-up with "bcryptprimitives.dll not found". This one exports
 * ProcessPrng and gets the bytes from RtlGenRandom (advapi32's
 * SystemFunction036), which Wine implements with the host's random source.
 *
 * It is a test fixture, never shipped: real Windows has its own DLL. The
 * tests under Wine build it with mingw-w64 and copy it into the fresh Wine
 * prefix's C:\windows\system32 (internal/testkit/wine):
 *
 *   x86_64-w64-mingw32-gcc -shared -O2 -o bcryptprimitives.dll \
 *       bcryptprimitives.c bcryptprimitives.def -ladvapi32
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
	/* RtlGenRandom takes a ULONG length: fill large buffers in parts. */
	while (size > 0) {
		ULONG n = size > 0x7fffffff ? 0x7fffffff : (ULONG)size;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		size -= n;
	}
	return TRUE;
}
