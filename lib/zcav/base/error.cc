#include "zcav/base/error.h"

#include <cerrno>

namespace zcav {

ErrorKind KindOfPathError(int error_number) {
  switch (error_number) {
    case ENOENT:
    case ENOTDIR:
    case EACCES:
    case EPERM:
    case EROFS:
    case EISDIR:
    case ENAMETOOLONG:
    case ELOOP:
      return ErrorKind::kBadInput;
    default:
      return ErrorKind::kRuntime;
  }
}

}  // namespace zcav
