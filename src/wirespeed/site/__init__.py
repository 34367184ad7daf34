"""A static site of many bundles (`wirespeed site DIR`): an index table of the devices'
cards, a page per card, comparisons chosen in the page and each device's trend over
firmware; and the check a results repository gates contributions with (`--check`)."""
