# The Debian package (`scripts/package`, which runs cpack): what `cmake --install` puts
# in place (the binary, its man page, the bash and zsh completions, the JSON schemas),
# under the configured prefix (scripts/package: /usr). The binary's default schema
# folder (ANIMFS_SCHEMA_DIR) comes from the same prefix, so the packaged animfs points
# its modelines at /usr/share/animfs/schema.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME animfs)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "animfs developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
  "game animation files as editable YAML, in a FUSE mount and on the command line")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
  "animfs shows the animations, state machines and skeletons of older 3D games
(PAYDAY 2, The Sims 3, Resident Evil 2 and 3, Shenmue) as YAML text files that any
editor can change and git can compare, and writes the binary back, byte for byte
for what was not changed. `animfs mount GAME VIEW` shows a game folder that way;
`animfs decode`, `encode` and `check` work without a mount.")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # animfs_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# the shared libraries, found by dpkg-shlibdeps (libc6, libfuse3-3, zlib1g, libyaml-0-2, libjson-c5),
# and fusermount3, which a FUSE mount of a user needs
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# libmicrohttpd12 is loaded by animfs serve (dlopen), so dpkg-shlibdeps cannot see it
set(CPACK_DEBIAN_PACKAGE_DEPENDS "fuse3, libmicrohttpd12")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "bash-completion")
set(CPACK_STRIP_FILES ON)
include(CPack)
