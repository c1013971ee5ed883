# Precompiled headers for the Qt code (views/, app/, tests/). A debug file of ours spends 3 to
# 7 s of its 8 to 20 s in the Qt, standard and model headers it includes; precompiled once per
# group, each file loads them in well under a second. Two full builds of ~150 such files (the
# plain and the sanitized pass of scripts/test.sh) make that minutes of a CI run.
#
# A group is the targets that see the same Qt module macros (QT_WIDGETS_LIB, QT_GUI_LIB, ...).
# GCC refuses a precompiled header made with a macro the file lacks, or without one the
# header tests (-Winvalid-pch, which CMake turns on, says so; with SPANSCOPE_WERROR it fails
# the build), so each group's host target, which builds the header, links the Qt modules
# that every target of the group links, and no more; the others reuse it (REUSE_FROM).
#
# The model headers are in the groups too. Precompiled, they are visible to every file of a
# group, so a file that forgets to include one still compiles here: configure with
# SPANSCOPE_PCH=OFF to check a change's includes.
#
# ccache caches such files only with sloppiness pch_defines,time_macros (scripts/test.sh
# sets it); without, it compiles them uncached and says so in its statistics.
option(SPANSCOPE_PCH "Precompile the Qt, standard and model headers of views/, app/ and tests/" ON)

set(SPANSCOPE_PCH_COMMON
  <algorithm> <cmath> <cstdint> <cstring> <functional> <map> <memory> <optional> <set>
  <span> <string> <vector>
  <QFile> <QFileInfo> <QDir> <QString> <QStringList> <QObject>
  "${PROJECT_SOURCE_DIR}/model/capture.h"
  "${PROJECT_SOURCE_DIR}/model/capture_loader.h"
  "${PROJECT_SOURCE_DIR}/model/stats/capture_summary.h")
set(SPANSCOPE_PCH_WIDGETS
  <QApplication> <QComboBox> <QHBoxLayout> <QHeaderView> <QLabel> <QMenu> <QPainter>
  <QPushButton> <QSettings> <QSplitter> <QStyle> <QTableView> <QToolButton> <QVBoxLayout>
  <QWidget> <qcustomplot.h>
  "${PROJECT_SOURCE_DIR}/model/timeline/timeline_index.h")

# Makes `host` (an object library of one empty file) precompile `headers` for targets linked
# like `libraries`.
function(spanscope_pch_host host)
  cmake_parse_arguments(ARG "" "" "HEADERS;LIBS" ${ARGN})
  file(WRITE ${CMAKE_BINARY_DIR}/generated/${host}.cpp "// Builds ${host}'s precompiled header.\n")
  add_library(${host} OBJECT ${CMAKE_BINARY_DIR}/generated/${host}.cpp)
  target_include_directories(${host} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${host} PRIVATE ${ARG_LIBS})
  target_precompile_headers(${host} PRIVATE ${ARG_HEADERS})
endfunction()

# Lets `target` use the precompiled header of `host` (a no-op with SPANSCOPE_PCH off).
function(spanscope_use_pch target host)
  if(SPANSCOPE_PCH AND TARGET ${host})
    target_precompile_headers(${target} REUSE_FROM ${host})
  endif()
endfunction()

# The hosts of the tests' groups, made in tests/: Qt Test defines QT_TESTCASE_BUILDDIR as the
# directory of the target, so the host must live where the tests do.
function(spanscope_pch_test_hosts)
  if(NOT SPANSCOPE_PCH)
    return()
  endif()
  # Tests of model/ and the collector: Qt Core and Qt Test.
  spanscope_pch_host(spanscope_pch_core_tests
    HEADERS ${SPANSCOPE_PCH_COMMON} <QtTest> <QTemporaryDir> <QProcess> <random> <thread>
    LIBS spanscope_model Qt6::Core Qt6::Test)
  # Tests of the viewer: Widgets, Concurrent and Qt Test.
  if(SPANSCOPE_BUILD_GUI)
    spanscope_pch_host(spanscope_pch_widget_tests
      HEADERS ${SPANSCOPE_PCH_COMMON} ${SPANSCOPE_PCH_WIDGETS} <QtTest> <QTemporaryDir>
      LIBS spanscope_model Qt6::Widgets Qt6::Concurrent Qt6::Test)
  endif()
endfunction()

# views/ and app/: Widgets and Concurrent. QCustomPlot's header needs no macro of its own,
# and Qt Print Support, which it brings, is not linked by every view library.
if(SPANSCOPE_PCH AND SPANSCOPE_BUILD_GUI)
  spanscope_pch_host(spanscope_pch_widgets
    HEADERS ${SPANSCOPE_PCH_COMMON} ${SPANSCOPE_PCH_WIDGETS}
    LIBS spanscope_model Qt6::Widgets Qt6::Concurrent)
endif()
