# zcav_warnings: an INTERFACE target carrying the warning flags, linked
# privately by every target of ours (never by third-party code).
add_library(zcav_warnings INTERFACE)
target_compile_options(zcav_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wno-sign-conversion
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-align -Wunused -Woverloaded-virtual
  -Wdouble-promotion -Wformat=2 -Wimplicit-fallthrough)
if(ZCAV_WARNINGS_AS_ERRORS)
  target_compile_options(zcav_warnings INTERFACE -Werror)
endif()
