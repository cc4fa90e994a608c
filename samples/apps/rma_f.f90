! rma_f: one-sided communication and MPI-IO from Fortran (`use mpi`), for the recorder's Fortran
! entry points: a window (MPI_WIN_CREATE) with MPI_PUT to the right neighbour between fences, a
! shared-lock epoch with MPI_GET, MPI_WIN_FREE; then a file opened on MPI_COMM_WORLD
! (MPI_FILE_OPEN, deleted on close) written collectively at the rank's offset
! (MPI_FILE_WRITE_AT_ALL), read back independently (MPI_FILE_READ_AT) and closed.
!
! Usage: rma_f (no arguments; 3 fenced steps)
program rma_f
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, win, fh, i
  integer(kind=MPI_ADDRESS_KIND) :: sz, disp
  integer(kind=MPI_OFFSET_KIND) :: off
  double precision :: buf(8), halo(8)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  sz = 64
  disp = 0
  buf = rank
  call MPI_Win_create(halo, sz, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  do i = 1, 3
    call MPI_Win_fence(0, win, ierr)
    call MPI_Put(buf, 8, MPI_DOUBLE_PRECISION, mod(rank + 1, nprocs), disp, 8, MPI_DOUBLE_PRECISION, win, ierr)
    call MPI_Win_fence(0, win, ierr)
  end do
  call MPI_Win_lock(MPI_LOCK_SHARED, mod(rank + 1, nprocs), 0, win, ierr)
  call MPI_Get(buf, 4, MPI_DOUBLE_PRECISION, mod(rank + 1, nprocs), disp, 4, MPI_DOUBLE_PRECISION, win, ierr)
  call MPI_Win_unlock(mod(rank + 1, nprocs), win, ierr)
  call MPI_Win_free(win, ierr)
  call MPI_File_open(MPI_COMM_WORLD, 'rma_f.dat', MPI_MODE_CREATE + MPI_MODE_RDWR + MPI_MODE_DELETE_ON_CLOSE, &
                     MPI_INFO_NULL, fh, ierr)
  off = rank * 64
  call MPI_File_write_at_all(fh, off, buf, 8, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE, ierr)
  call MPI_File_read_at(fh, off, halo, 8, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program rma_f
