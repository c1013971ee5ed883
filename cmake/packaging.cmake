# The Debian package (scripts/package.sh runs `cpack -G DEB` in a Release build). Its
# Depends are worked out by dpkg-shlibdeps from the libraries the installed programs
# really load (Qt 6, QCustomPlot, zstd, lzf, libdeflate, zlib, and HDF5's own
# dependencies: HDF5 itself is linked statically, see SPANSCOPE_STATIC_HDF5), so they
# stay right when a dependency changes.
set(CPACK_PACKAGE_NAME spanscope)
set(CPACK_PACKAGE_VENDOR "spanscope")
set(SPANSCOPE_PACKAGE_MAINTAINER "spanscope developers <spanscope@users.noreply.github.com>"
    CACHE STRING "The Debian package's Maintainer field")
set(CPACK_PACKAGE_CONTACT "${SPANSCOPE_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "spanscope opens scope-profiler HDF5 region files, PyTorch profiler and other Chrome\n\
trace JSON, and its own captures; records the NVTX ranges of running programs live; and\n\
shows timelines per thread, task and GPU stream, span trees, statistics, GPU against\n\
wall time, allocations and side-by-side comparisons of runs. spanscope-cli prints the\n\
same figures for scripts and CI.")
set(CPACK_PACKAGE_HOMEPAGE_URL "${SPANSCOPE_HOMEPAGE_URL}")
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_GENERATOR DEB)
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The collector is a private plugin (no soname), found by path; not a shared library
# for other packages to link.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
# The system's icon, desktop and MIME caches pick up the new files.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "desktop-file-utils, shared-mime-info")
include(CPack)
