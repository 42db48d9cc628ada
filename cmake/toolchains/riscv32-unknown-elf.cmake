# CMake toolchain file for 32-bit RISC-V microcontrollers with Debian's
# riscv64-unknown-elf-gcc (multilib: -march=rv32imac -mabi=ilp32) and picolibc.
#
#   cmake -DCMAKE_TOOLCHAIN_FILE=<kpca>/cmake/toolchains/riscv32-unknown-elf.cmake ...
#
# RISCV_ARCH  -march (default rv32imac), RISCV_ABI -mabi (default ilp32),
# RISCV_TOOLCHAIN_PREFIX (default riscv64-unknown-elf-). kpca::kpca is then
# riscv32imac-unknown-none-elf.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR riscv32)
set(RISCV_ARCH "rv32imac" CACHE STRING "-march")
set(RISCV_ABI "ilp32" CACHE STRING "-mabi")
set(RISCV_TOOLCHAIN_PREFIX "riscv64-unknown-elf-" CACHE STRING "prefix of gcc, ld, objcopy, ...")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES RISCV_ARCH RISCV_ABI RISCV_TOOLCHAIN_PREFIX)
set(CMAKE_C_COMPILER "${RISCV_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_CXX_COMPILER "${RISCV_TOOLCHAIN_PREFIX}g++")
set(CMAKE_ASM_COMPILER "${RISCV_TOOLCHAIN_PREFIX}gcc")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(_rv_flags "-march=${RISCV_ARCH} -mabi=${RISCV_ABI}")
set(CMAKE_C_FLAGS_INIT "${_rv_flags}")
set(CMAKE_CXX_FLAGS_INIT "${_rv_flags}")
set(CMAKE_ASM_FLAGS_INIT "${_rv_flags}")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_rv_flags}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
