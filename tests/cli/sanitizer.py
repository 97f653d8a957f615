"""Whether a binary is built with AddressSanitizer, whose shadow memory (terabytes of address space reserved at
start) cannot run under an address-space limit: the tests that set one (`ulimit -v`) skip such a build."""


def built_with_address_sanitizer(binary):
    with open(binary, "rb") as f:
        return b"__asan_init" in f.read()
