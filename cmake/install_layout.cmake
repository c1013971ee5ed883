# Where `cmake --install` and the Debian package put things (GNUInstallDirs), and how the
# programs find each other from their own location, so an installed tree can be moved:
#   <bindir>/spanscope, spanscope-cli, spanscope-run, spanscope-demo, spanscope-sps-dump
#   <libexecdir>/spanscope/spanscope-cli-core, spanscope-render   (run by spanscope-cli)
#   <libdir>/spanscope/libspanscope-collector.so                  (injected into jobs)
#   <includedir>/spanscope/*.h                                    (the wire format, for users' tools)
#   <datadir>/applications, icons, metainfo, mime, man
include(GNUInstallDirs)
set(SPANSCOPE_INSTALL_LIBEXECDIR "${CMAKE_INSTALL_LIBEXECDIR}/spanscope")
set(SPANSCOPE_INSTALL_PLUGINDIR "${CMAKE_INSTALL_LIBDIR}/spanscope")
set(SPANSCOPE_INSTALL_INCLUDEDIR "${CMAKE_INSTALL_INCLUDEDIR}/spanscope")

# Paths from <bindir> to the others; the prefix cancels out (relative install dirs).
file(RELATIVE_PATH SPANSCOPE_BIN_TO_LIBEXEC "/prefix/${CMAKE_INSTALL_BINDIR}"
     "/prefix/${SPANSCOPE_INSTALL_LIBEXECDIR}")
file(RELATIVE_PATH SPANSCOPE_BIN_TO_PLUGINS "/prefix/${CMAKE_INSTALL_BINDIR}"
     "/prefix/${SPANSCOPE_INSTALL_PLUGINDIR}")
# Programs that look for their peers get both layouts: installed first, then the build
# tree (<build>/bin and <build>/lib).
add_library(spanscope_install_layout INTERFACE)
target_compile_definitions(spanscope_install_layout INTERFACE
  SPANSCOPE_BIN_TO_LIBEXEC="${SPANSCOPE_BIN_TO_LIBEXEC}"
  SPANSCOPE_BIN_TO_PLUGINS="${SPANSCOPE_BIN_TO_PLUGINS}")
