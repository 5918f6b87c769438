"""One exception class per library status, each also the fitting builtin."""


class Error(Exception):
    """Any failure the library reports; the message is the library's."""


class InvalidArgument(Error, ValueError):
    """OCLCONV_E_INVALID_ARG: a size, stride, enum or filter problem."""


class OutOfMemory(Error, MemoryError):
    """OCLCONV_E_NOMEM: host or device memory could not be had."""


class NoDevice(Error, RuntimeError):
    """OCLCONV_E_NO_DEVICE: no OpenCL device matches (the message lists those that exist)."""


class Unsupported(Error, NotImplementedError):
    """OCLCONV_E_UNSUPPORTED: the method cannot run on this device or image."""


class BuildError(Error, RuntimeError):
    """OCLCONV_E_BUILD: a kernel failed to compile (the message holds the log)."""


class OpenCLError(Error, RuntimeError):
    """OCLCONV_E_OPENCL: another OpenCL call failed."""


# Indexed by -status, as the extension module expects them.
BY_STATUS = (Error, InvalidArgument, OutOfMemory, NoDevice, Unsupported, BuildError,
             OpenCLError)
