# The hypervisor image (filled in with the boot code).
