$benchnum  = '177';
$benchname = 'mesa';
$benchlang = 'C';
@sources=qw(mesa.c);
1;
