# What `cmake --install` puts beside the binary and man page, and the Debian
# package: `cpack -G DEB` in the build directory writes zcav_VERSION_ARCH.deb.
# Paths follow the FHS under CMAKE_INSTALL_PREFIX (/usr in the package):
#   share/zcav/plots/*.gp                       the gnuplot templates (the binary
#                                               embeds its own copy; these are
#                                               to read and adapt)
#   share/bash-completion/completions/zcav      bash completion
#   share/zsh/vendor-completions/_zcav          zsh completion (Debian's path)
#   share/doc/zcav/examples/                    examples/ (data, scripts, plots)
# tests/deb_package_test.sh builds the package and installs it in a clean root.

install(DIRECTORY plots/ DESTINATION ${CMAKE_INSTALL_DATADIR}/zcav/plots
        FILES_MATCHING PATTERN "*.gp")
install(FILES completions/zcav.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME zcav)
install(FILES completions/_zcav DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/vendor-completions)
install(DIRECTORY examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples
        PATTERN "check-examples.sh" EXCLUDE)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(ZCAV_DEB_MAINTAINER "zcav maintainers <maintainers@users.noreply.a-seed-7561ff18.example>"
    CACHE STRING "The Maintainer field of the Debian package")

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME zcav)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT ${ZCAV_DEB_MAINTAINER})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "profile how fast a storage device reads at every position")
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER ${ZCAV_DEB_MAINTAINER})
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The extended description (CPack puts the summary above it and indents it).
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "zcav reads a disk, SSD, optical disc or file from its first byte to its last
and records the read rate of every block: the outer-to-inner falloff of a hard
disk's zones, the flat ceiling of a USB bridge, the steps of a throttling
NVMe drive. It finds the zones, tells a bus-limited device from a
media-limited one, measures access time and burst rate, concludes on the
drive's health (unreadable and slow regions, SMART, temperature) and writes
plots (gnuplot) and Markdown or HTML reports. It reads the classic zcav
command line and data layout of bonnie++.")
# Depends: the shared libraries' packages, found by dpkg-shlibdeps.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox | gnuplot-x11 | gnuplot-qt, smartmontools")
include(CPack)
