/* The vendor configuration compiled at build time (make: CONFIG=configs/<name>.dts ->
 * build/config.blob), embedded read-only in the image.  A GRUB module tagged tessera-config
 * overrides it at boot. */
    .section .rodata
    .balign 8
    .global builtin_config_blob, builtin_config_blob_end
builtin_config_blob:
    .incbin CONFIG_BLOB_PATH
builtin_config_blob_end:
