# CMake toolchain file: Cortex-M4 with its single-precision FPU, arm-none-eabi-gcc, newlib-nano.
#   cmake -S examples/cmake -B build/cmake-m4 -DTINYAOT_MODEL_DIR=build/ds_cnn \
#     -DCMAKE_TOOLCHAIN_FILE=$PWD/examples/cmake/cortex-m4.cmake
# Executables link against nosys stubs (no semihosting, no board): the build checks that the model
# library compiles and links for the target; running it needs a board's startup code and I/O.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_C_FLAGS_INIT "-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16")
set(CMAKE_EXE_LINKER_FLAGS_INIT "--specs=nano.specs --specs=nosys.specs")
# The compiler check links a test program; a static library needs no startup code or stubs.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
