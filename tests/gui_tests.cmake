# GUI tests: the views' item models and the main window, run on the offscreen platform.
# Included from tests/CMakeLists.txt.

function(spanscope_gui_test name source)
  add_executable(${name} ${source})
  set_target_properties(${name} PROPERTIES
    AUTOMOC ON
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  target_compile_definitions(${name} PRIVATE
    SPANSCOPE_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data")
  target_link_libraries(${name} PRIVATE ${ARGN} spanscope_testsupport Qt6::Test)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen"
    LABELS gui
    TIMEOUT 120)
endfunction()

spanscope_gui_test(tst_region_table_model
  ${CMAKE_CURRENT_LIST_DIR}/views/tst_region_table_model.cpp spanscope_views)
spanscope_gui_test(tst_main_window
  ${CMAKE_CURRENT_LIST_DIR}/app/tst_main_window.cpp spanscope_gui)
